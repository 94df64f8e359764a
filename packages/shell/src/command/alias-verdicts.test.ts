import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { PathScope } from '../types/path-scope.js'
import { createCommandChecker } from './create-command-checker.js'
import { PROGRAM_FAMILIES } from './programs/program-families.js'

interface CorpusCase {
  readonly command: string
  readonly expect: string
}

const corpus = JSON.parse(
  readFileSync(new URL('./__fixtures__/command-corpus.json', import.meta.url), 'utf8'),
) as { readonly scope: PathScope; readonly cases: readonly CorpusCase[] }

/** Refusals of each program, written for the class of an alias skipping a table of its program. */
const REFUSALS: readonly string[] = [
  'make -I inc',
  'make --include-dir=inc',
  'make -f other.mk',
  'make --eval=x',
  'pytest -p evil',
  'pytest -pevil',
  'pytest --pastebin=all',
  'pytest -o addopts=-pevil',
  'pytest -c /tmp/pytest.ini',
  'tar -xPf a.tar',
  'tar -czf out.tgz .',
  'grep -r KEY .',
  'gcc @args main.c',
  'gzip -r .',
]

const ALIASES = PROGRAM_FAMILIES.flatMap((family) => Object.entries(family.aliases ?? {}))

describe('aliases', () => {
  it('should refuse under an alias every command its program is refused, with the same code', async () => {
    const programs = new Set(ALIASES.map(([, program]) => program))
    const allow = [...programs, ...ALIASES.map(([alias]) => alias)]
    const checker = await createCommandChecker({
      policy: { allow, maxLength: 8192 },
      scope: {
        ...corpus.scope,
        readOnly: [...corpus.scope.readOnly, `${corpus.scope.roots[0]}/Makefile`],
      },
    })
    const commands = [
      ...REFUSALS,
      ...corpus.cases.filter((entry) => entry.expect !== 'allow').map((entry) => entry.command),
    ]
    const differing: string[] = []
    let compared = 0
    for (const command of commands) {
      const [program, ...rest] = command.split(' ')
      const direct = checker.check(command)
      if (direct.allowed) continue
      for (const [alias, target] of ALIASES) {
        if (target !== program) continue
        compared += 1
        const aliased = checker.check([alias, ...rest].join(' '))
        const code = aliased.allowed ? 'allow' : aliased.issue.code
        if (code !== direct.issue.code)
          differing.push(`${alias} ${rest.join(' ')}: ${code}, ${program}: ${direct.issue.code}`)
      }
    }
    expect(differing).toEqual([])
    expect(compared).toBeGreaterThan(40)
  })
})
