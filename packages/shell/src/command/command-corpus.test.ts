import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { commandPolicySchema } from '../schema/command-policy.js'
import type { PathScope } from '../types/path-scope.js'
import type { CommandChecker } from './create-command-checker.js'
import { createCommandChecker } from './create-command-checker.js'
import { policyWord } from './program-path.js'

interface CorpusCase {
  readonly command: string
  /** `allow`, or the issue code the first problem must have. */
  readonly expect: string
  readonly source: string
}

interface Corpus {
  readonly policy: unknown
  readonly scope: PathScope
  readonly cases: readonly CorpusCase[]
}

const corpus = JSON.parse(
  readFileSync(new URL('./__fixtures__/command-corpus.json', import.meta.url), 'utf8'),
) as Corpus
const denied = corpus.cases.filter((entry) => entry.expect !== 'allow')
const allowed = corpus.cases.filter((entry) => entry.expect === 'allow')

describe('createCommandChecker (corpus)', () => {
  let checker: CommandChecker
  beforeAll(async () => {
    checker = await createCommandChecker({
      policy: commandPolicySchema.parse(corpus.policy),
      scope: corpus.scope,
    })
  })

  it('should hold at least 300 cases, 200 denied and 80 allowed, each naming its source', () => {
    expect(corpus.cases.length).toBeGreaterThanOrEqual(300)
    expect(denied.length).toBeGreaterThanOrEqual(200)
    expect(allowed.length).toBeGreaterThanOrEqual(80)
    for (const entry of corpus.cases) expect(entry.source.length).toBeGreaterThan(0)
    expect(new Set(corpus.cases.map((entry) => entry.command)).size).toBe(corpus.cases.length)
  })

  it('should deny every command the corpus marks as denied, with the expected first issue code', () => {
    const wrong = denied.flatMap((entry) => {
      const result = checker.check(entry.command)
      if (result.allowed)
        return [{ command: entry.command, expected: entry.expect, got: 'allowed' }]
      if (result.issue.code !== entry.expect) {
        return [
          {
            command: entry.command,
            expected: entry.expect,
            got: result.issues.map((issue) => issue.code).join(','),
          },
        ]
      }
      return []
    })
    expect(wrong).toEqual([])
  })

  it('should allow every command the corpus marks as allowed', () => {
    const wrong = allowed.flatMap((entry) => {
      const result = checker.check(entry.command)
      return result.allowed ? [] : [{ command: entry.command, issue: result.issue.message }]
    })
    expect(wrong).toEqual([])
  })

  it('should return an argv whose program is an allowed one, by name or in a system folder', () => {
    const allow = new Set(commandPolicySchema.parse(corpus.policy).allow)
    for (const entry of allowed) {
      const result = checker.check(entry.command)
      if (result.allowed)
        expect(allow.has(policyWord(result.argv[0] as string, allow) ?? '')).toBe(true)
    }
  })
})
