import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import type { CliIo } from './io.js'
import { runCli } from './run-cli.js'

const fixtures = fileURLToPath(new URL('./__fixtures__/', import.meta.url))

async function run(argv: string[]) {
  let stdout = ''
  let stderr = ''
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text), isTTY: false },
    stderr: { write: (text: string) => (stderr += text) },
    readStdin: async () => '',
    cwd: fixtures,
    env: {},
  }
  const code = await runCli(argv, io)
  return { code, stdout, stderr }
}

describe('loadCompiler', () => {
  it('should refuse a policy with a wrong example, naming the example (exit 2)', async () => {
    const result = await run(['check', 'seed-plan-1.json', '--policy', 'wrong-example-policy.json'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('policy_example_failed at tools.view_file.examples.allow[1]')
    expect(result.stderr).toContain('{"file":"/etc/passwd"}')
    expect(result.stderr).toContain('path_outside_workspace')
    expect(result.stderr).not.toContain('internal error')
  })

  it('should give the example issue in the JSON document under --format json', async () => {
    const result = await run([
      'check',
      'seed-plan-1.json',
      '--policy',
      'wrong-example-policy.json',
      '--format',
      'json',
    ])
    expect(result.code).toBe(2)
    expect(JSON.parse(result.stdout).issues).toEqual([
      expect.objectContaining({
        code: 'policy_example_failed',
        path: ['tools', 'view_file', 'examples', 'allow', 1],
      }),
    ])
  })
})
