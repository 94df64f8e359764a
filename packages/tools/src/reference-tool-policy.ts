import type { PolicyInput } from '@plan/core'

/**
 * The `tools` section of a policy that matches the reference tools: `view_file`,
 * `write_file`, `list_files` and `run_command`. Spread it into a policy's `tools`.
 *
 * @example
 * ```ts
 * const compiler = await createPlanCompiler({
 *   version: 1,
 *   workspace: { roots: ['/srv/repo'] },
 *   tools: referenceToolPolicy(),
 *   commands: { allow: ['git', 'ls'] },
 * })
 * ```
 */
export function referenceToolPolicy(): PolicyInput['tools'] {
  return {
    view_file: {
      description: 'Read a text file inside the workspace.',
      args: { file: { type: 'path', access: 'read' } },
    },
    write_file: {
      description: 'Write a whole text file inside the workspace (atomically).',
      args: { file: { type: 'path', access: 'write' }, content: { type: 'string' } },
    },
    list_files: {
      description: 'List the entries of a folder inside the workspace.',
      args: { dir: { type: 'path', access: 'read', required: false } },
    },
    run_command: {
      description: 'Run one allowed program, without a shell, in the workspace.',
      args: { command: { type: 'command' } },
    },
  }
}
