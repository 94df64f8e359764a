import { afterEach, describe, expect, it, vi } from 'vitest'
import { commandPolicySchema } from '../schema/command-policy.js'
import { nodeBuiltin } from '../util/node-builtin.js'
import { createCommandChecker } from './create-command-checker.js'

const fs = nodeBuiltin<{ readFileSync(path: unknown, ...rest: unknown[]): unknown }>('node:fs')
const scope = { roots: ['/srv/repo'], readOnly: [], deny: [] }

describe('createCommandChecker when the grammar cannot be loaded', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('should refuse what needs the grammar, check plain commands, and load it again later', async () => {
    if (fs === undefined) throw new Error('node:fs is missing.')
    const read = fs.readFileSync.bind(fs)
    const reads = vi.spyOn(fs, 'readFileSync').mockImplementation((path, ...rest) => {
      if (String(path).endsWith('tree-sitter-bash.wasm')) throw new Error('EIO: the disk failed')
      return read(path, ...rest)
    })
    const checker = await createCommandChecker({
      policy: commandPolicySchema.parse({ allow: ['git', 'echo'] }),
      scope,
    })
    expect(checker.check('echo "$HOME"')).toMatchObject({
      allowed: false,
      issue: {
        code: 'command_parse_error',
        message: expect.stringContaining('EIO: the disk failed'),
      },
    })
    expect(checker.check('git status')).toEqual({ allowed: true, argv: ['git', 'status'] })
    reads.mockRestore()
    // The refusal was not kept: the grammar loads now and reads the command.
    expect(checker.check('echo "$HOME"')).toMatchObject({
      allowed: false,
      issue: { code: 'command_expansion' },
    })
    expect(checker.check('echo "hello world"')).toEqual({
      allowed: true,
      argv: ['echo', 'hello world'],
    })
  })
})
