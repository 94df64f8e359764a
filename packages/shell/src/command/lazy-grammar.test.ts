import { afterEach, describe, expect, it, vi } from 'vitest'
import { commandPolicySchema } from '../schema/command-policy.js'
import { nodeBuiltin } from '../util/node-builtin.js'
import { createCommandChecker } from './create-command-checker.js'

const fs = nodeBuiltin<{ readFileSync(path: unknown, ...rest: unknown[]): unknown }>('node:fs')
const scope = { roots: ['/srv/repo'], readOnly: [], deny: [] }

/** How many times the Bash grammar's file was read since the spy was set. */
function grammarReads(spy: { readonly mock: { readonly calls: unknown[][] } }): number {
  return spy.mock.calls.filter(([path]) => String(path).endsWith('/tree-sitter-bash.wasm')).length
}

describe('createCommandChecker', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('should check plain commands without loading the grammar, and load it once when needed', async () => {
    if (fs === undefined) throw new Error('node:fs is missing.')
    const reads = vi.spyOn(fs, 'readFileSync')
    const checker = await createCommandChecker({
      policy: commandPolicySchema.parse({ allow: ['git', 'echo'] }),
      scope,
    })
    expect(checker.check('git status')).toEqual({ allowed: true, argv: ['git', 'status'] })
    expect(checker.check('git log --oneline | git status').allowed).toBe(false)
    expect(grammarReads(reads)).toBe(0)
    expect(checker.check('echo "$HOME"')).toMatchObject({
      allowed: false,
      issue: { code: 'command_expansion' },
    })
    expect(checker.check('git log $(cat x)')).toMatchObject({
      allowed: false,
      issue: { code: 'command_substitution' },
    })
    expect(grammarReads(reads)).toBe(1)
  })
})
