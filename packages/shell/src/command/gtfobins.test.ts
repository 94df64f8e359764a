import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { commandPolicySchema } from '../schema/command-policy.js'
import type { PathScope } from '../types/path-scope.js'
import { isCatalogProgram } from './catalog-programs.js'
import { type CommandChecker, createCommandChecker } from './create-command-checker.js'

interface Technique {
  readonly program: string
  readonly function: string
  readonly code: string
}

const fixture = JSON.parse(
  readFileSync(new URL('./__fixtures__/gtfobins.json', import.meta.url), 'utf8'),
) as { readonly source: string; readonly techniques: readonly Technique[] }

const scope: PathScope = {
  roots: ['/srv/repo'],
  readOnly: ['/srv/repo/vendor'],
  deny: ['/srv/repo/.env'],
}
// Techniques that run code whatever paths they name.
const RUNS_CODE = new Set(['shell', 'command', 'library-load', 'reverse-shell', 'bind-shell'])
// Placeholders, replaced by workspace names so that only the structural rules can refuse them.
const SUBSTITUTIONS: readonly (readonly [RegExp, string])[] = [
  [/\/path\/to\/input-file/g, '.env'],
  [/\/path\/to\/ou?tput-file/g, 'vendor/out'],
  [/\/path\/to\/output-dir/g, 'vendor'],
  [/\/path\/to\/temp-file/g, 'tmp/file'],
  [/\/path\/to\/temp-dir/g, 'tmp'],
  [/\/path\/to\/lib(\.so)?/g, 'build/lib.so'],
  [/\/path\/to\/command/g, 'id'],
  [/\/bin\/sh\b/g, 'sh'],
]
// A command reaches a protected or outside path when it names one after substitution.
const REACHES = /(^|[\s'"=:@,(/])(\.env|vendor)\b|(^|[\s'"=:@,(])\/(?!srv\/repo\b)[A-Za-z]/

/** The one-line commands of a technique that start with its program, after substitution. */
export function commandLines(technique: Technique): string[] {
  let code = technique.code
  for (const [pattern, replacement] of SUBSTITUTIONS) code = code.replace(pattern, replacement)
  const lines: string[] = []
  for (const line of code.split('\n')) {
    const trimmed = line.trim()
    const starts = (text: string) =>
      text === technique.program || text.startsWith(`${technique.program} `)
    if (starts(trimmed)) lines.push(trimmed)
    const last = trimmed.split('|').at(-1)?.trim() ?? ''
    if (last !== trimmed && starts(last)) lines.push(last)
  }
  return lines
}

/**
 * Whether a technique's command must be refused under a policy that allows its program: it
 * names a protected or outside path, or it is a one-line technique that runs code. A line of a
 * multi-line technique may run code only because an earlier line wrote a hook or a config
 * file (`git commit` after writing .git/hooks); that earlier write is what the checks refuse.
 */
export function mustRefuse(technique: Technique, line: string): boolean {
  const oneLine = !technique.code.trim().includes('\n')
  return (oneLine && RUNS_CODE.has(technique.function)) || REACHES.test(line)
}

const inCatalog = fixture.techniques.filter((technique) => isCatalogProgram(technique.program))
const checkers = new Map<string, CommandChecker>()

describe('createCommandChecker (GTFOBins)', () => {
  beforeAll(async () => {
    for (const program of new Set(inCatalog.map((technique) => technique.program))) {
      checkers.set(
        program,
        await createCommandChecker({
          policy: commandPolicySchema.parse({ allow: [program] }),
          scope,
        }),
      )
    }
  }, 60_000)

  it('should hold the GTFOBins techniques with their source', () => {
    expect(fixture.source).toContain('GTFOBins')
    expect(fixture.techniques.length).toBeGreaterThan(700)
    expect(inCatalog.length).toBeGreaterThan(100)
  })

  it('should refuse every one-line technique of a catalog program that reaches a protected or outside path or runs code', () => {
    const approved: string[] = []
    let tested = 0
    for (const technique of inCatalog) {
      const checker = checkers.get(technique.program) as CommandChecker
      for (const line of commandLines(technique)) {
        if (!mustRefuse(technique, line)) continue
        tested += 1
        if (checker.check(line).allowed) approved.push(`${technique.function}: ${line}`)
      }
    }
    expect(tested).toBeGreaterThan(200)
    expect(approved).toEqual([])
  }, 60_000)
})
