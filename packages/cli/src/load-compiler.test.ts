import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { runInMemory } from './test-utils/run-in-memory.js'

const fixtures = fileURLToPath(new URL('./__fixtures__/', import.meta.url))

const run = (argv: string[]) => runInMemory(argv, { cwd: fixtures })

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
