import type { PolicyInput } from '../schema/policy-schema.js'

/**
 * A test policy over `root`: `view_file` (reads a path), `write_file` (writes a path and a string)
 * and `run_command` (a command of `echo`, `git`, `ls` or `npm`); `extra` keys replace the defaults.
 *
 * @example
 * ```ts
 * const policy = testPolicy(workspace.root, { budgets: { maxCalls: 2 } })
 * ```
 */
export function testPolicy(root: string, extra: Partial<PolicyInput> = {}): PolicyInput {
  return {
    version: 1,
    workspace: { roots: [root] },
    tools: {
      view_file: { args: { file: { type: 'path', access: 'read' } } },
      write_file: {
        args: { file: { type: 'path', access: 'write' }, content: { type: 'string' } },
      },
      run_command: { args: { command: { type: 'command' } } },
    },
    commands: { allow: ['echo', 'git', 'ls', 'npm'] },
    ...extra,
  }
}
