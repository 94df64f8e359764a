import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { commandPolicySchema } from '../schema/command-policy.js'
import type { PathScope } from '../types/path-scope.js'
import { type CommandChecker, createCommandChecker } from './create-command-checker.js'

interface EverydayCorpus {
  readonly policy: unknown
  readonly scope: PathScope
  readonly commands: readonly string[]
}

const corpus = JSON.parse(
  readFileSync(new URL('./__fixtures__/everyday-commands.json', import.meta.url), 'utf8'),
) as EverydayCorpus

// Refused on purpose: a glob no shell expands here, git writing `.git/config`, and go
// installing into GOBIN outside the workspace.
const KNOWN_REFUSALS: Readonly<Record<string, string>> = {
  'wc -l src/*.ts': 'command_glob',
  'go install ./cmd/tool': 'command_flag_denied',
  'git push -u origin HEAD': 'path_not_allowed',
  'git submodule update --init --recursive': 'path_not_allowed',
}

describe('createCommandChecker (everyday commands)', () => {
  let checker: CommandChecker
  beforeAll(async () => {
    checker = await createCommandChecker({
      policy: commandPolicySchema.parse(corpus.policy),
      scope: corpus.scope,
    })
  })

  it('should hold at least 300 distinct everyday commands', () => {
    expect(corpus.commands.length).toBeGreaterThanOrEqual(300)
    expect(new Set(corpus.commands).size).toBe(corpus.commands.length)
  })

  it('should refuse at most 1% of them, each for a stated reason', () => {
    const refused = corpus.commands.flatMap((command) => {
      const result = checker.check(command)
      return result.allowed ? [] : [{ command, code: result.issue.code }]
    })
    expect(refused.length).toBeLessThanOrEqual(Math.floor(corpus.commands.length / 100))
    expect(Object.fromEntries(refused.map((entry) => [entry.command, entry.code]))).toEqual(
      KNOWN_REFUSALS,
    )
  })

  it('should pass the everyday commands an agent most needs', () => {
    for (const command of [
      'git commit -m "fix: a | b"',
      'git add src/index.ts',
      'git checkout -b feature/auth',
      'git tag -a v1.0.0 -m "release 1.0.0"',
      'git -C . branch --show-current',
      'git stash',
      'git switch -c fix/typo',
      'git restore --staged src/index.ts',
      'node scripts/build.mjs',
      '/usr/local/bin/node script.js',
      'python3 scripts/gen.py --out build/gen.json',
      'python -m pytest -q',
      'which node',
      'make test VERBOSE=1',
      'git stash apply stash@{0}',
    ])
      expect({ command, allowed: checker.check(command).allowed }).toEqual({
        command,
        allowed: true,
      })
  })
})
