import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { runInMemory } from '../test-utils/run-in-memory.js'

const fixtures = fileURLToPath(new URL('../__fixtures__/', import.meta.url))

const run = (argv: string[], cwd = fixtures) => runInMemory(argv, { cwd })

describe('plan policy test', () => {
  it('should print a table of passing cases and exit 0', async () => {
    const result = await run(['policy', 'test', 'policy.json', 'policy-cases.jsonl'])
    expect(result.code).toBe(0)
    const lines = result.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^#\s+case\s+expected\s+decided\s+result$/)
    expect(lines[1]).toMatch(/^1\s+read a source file\s+allow\s+allow\s+pass$/)
    expect(lines[2]).toMatch(
      /^2\s+view_file \{"file":"\.\.\/\.\.\/etc\/passwd"\}\s+deny path_outside_workspace\s+deny path_outside_workspace\s+pass$/,
    )
    expect(lines.at(-1)).toBe('7 passed, 0 failed')
  })

  it('should mark a wrong decision and a wrong code as failed and exit 1', async () => {
    const result = await run([
      'policy',
      'test',
      'policy.json',
      'policy-cases-wrong.jsonl',
      '--format',
      'json',
    ])
    expect(result.code).toBe(1)
    const document = JSON.parse(result.stdout)
    expect(document).toMatchObject({ passed: 1, failed: 2 })
    expect(
      document.results.map((entry: { passed: boolean; codes: string[] }) => [
        entry.passed,
        entry.codes,
      ]),
    ).toEqual([
      [true, []],
      [false, ['command_not_allowed']],
      [false, ['path_outside_workspace']],
    ])
  })

  it('should exit 2 naming each line that is not a case', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'plan-policy-test-'))
    try {
      await writeFile(
        join(folder, 'cases.jsonl'),
        '{"command":"ls","expect":"maybe"}\nnot json\n{"tool":"x","command":"y","expect":"allow"}\n',
      )
      const result = await run(
        ['policy', 'test', join(fixtures, 'policy.json'), 'cases.jsonl'],
        folder,
      )
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('cases.jsonl:1: "expect" must be "allow" or "deny"')
      expect(result.stderr).toContain('cases.jsonl:2: not valid JSON')
      expect(result.stderr).toContain('cases.jsonl:3: a case has either')
    } finally {
      await rm(folder, { recursive: true, force: true })
    }
  })
})
