import { afterEach, describe, expect, it, vi } from 'vitest'
import { commandPolicySchema } from '../schema/command-policy.js'
import { nodeBuiltin } from '../util/node-builtin.js'
import { createCommandChecker } from './create-command-checker.js'

const fs = nodeBuiltin<{ readFileSync(path: unknown, ...rest: unknown[]): unknown }>('node:fs')
const scope = { roots: ['/srv/repo'], readOnly: [], deny: [] }

/** The WebAssembly files (the runtime's, the grammar's) read since the spy was set. */
function wasmReads(spy: { readonly mock: { readonly calls: unknown[][] } }): string[] {
  return spy.mock.calls
    .map(([path]) => String(path))
    .filter((path) => path.endsWith('.wasm'))
    .map((path) => path.slice(path.lastIndexOf('/') + 1))
}

describe('createCommandChecker', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('should check plain commands without the grammar, and load it with its runtime once when needed', async () => {
    if (fs === undefined) throw new Error('node:fs is missing.')
    const reads = vi.spyOn(fs, 'readFileSync')
    const checker = await createCommandChecker({
      policy: commandPolicySchema.parse({ allow: ['git', 'echo'] }),
      scope,
    })
    expect(checker.check('git status')).toEqual({ allowed: true, argv: ['git', 'status'] })
    expect(checker.check('git log --oneline | git status').allowed).toBe(false)
    expect(wasmReads(reads)).toEqual([])
    expect(checker.check('echo "$HOME"')).toMatchObject({
      allowed: false,
      issue: { code: 'command_expansion' },
    })
    expect(checker.check('git log $(cat x)')).toMatchObject({
      allowed: false,
      issue: { code: 'command_substitution' },
    })
    expect(wasmReads(reads)).toEqual(['tree-sitter.wasm', 'tree-sitter-bash.wasm'])
  })
})
