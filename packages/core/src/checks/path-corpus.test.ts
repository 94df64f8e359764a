import { readFileSync } from 'node:fs'
import { checkPathLexical, type PathAccess, type PathScope } from '@plan/shell/common'
import { describe, expect, it } from 'vitest'

interface CorpusCase {
  readonly path: string
  readonly access: PathAccess
  /** `allow`, or the issue code the path must be refused with. */
  readonly expect: string
  readonly source: string
}

const corpus = JSON.parse(
  readFileSync(new URL('./__fixtures__/path-corpus.json', import.meta.url), 'utf8'),
) as { readonly scope: PathScope; readonly cases: readonly CorpusCase[] }

const outcome = (entry: CorpusCase): string => {
  const result = checkPathLexical(entry.path, corpus.scope, entry.access)
  return result.allowed ? 'allow' : result.issue.code
}

describe('checkPathLexical (corpus)', () => {
  it('should hold at least 100 distinct cases, each naming its source', () => {
    expect(corpus.cases.length).toBeGreaterThanOrEqual(100)
    expect(new Set(corpus.cases.map((entry) => `${entry.access}:${entry.path}`)).size).toBe(
      corpus.cases.length,
    )
    for (const entry of corpus.cases) expect(entry.source.length).toBeGreaterThan(0)
  })

  it('should refuse every path the corpus marks as dangerous, with the expected code', () => {
    const wrong = corpus.cases
      .filter((entry) => entry.expect !== 'allow' && outcome(entry) !== entry.expect)
      .map((entry) => ({ path: entry.path, expected: entry.expect, got: outcome(entry) }))
    expect(wrong).toEqual([])
  })

  it('should allow every harmless path of the corpus', () => {
    const wrong = corpus.cases
      .filter((entry) => entry.expect === 'allow' && outcome(entry) !== 'allow')
      .map((entry) => ({ path: entry.path, got: outcome(entry) }))
    expect(wrong).toEqual([])
  })
})
