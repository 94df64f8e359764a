import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { PolicyInput } from '@plan/core'

/** A temporary folder to use as a policy's workspace root. */
export interface TestWorkspace {
  /** The folder, with symlinks resolved (so paths the guard resolves compare equal). */
  readonly root: string
  /** Deletes the folder and everything in it. */
  remove(): void
}

/** The files of a {@link createTestWorkspace} without `files`. */
export const defaultTestFiles: Readonly<Record<string, string>> = {
  'README.md': '# demo\n',
  'src/index.ts': 'export const answer = 42\n',
}

/**
 * Creates a temporary workspace holding `files` (relative path → text; by default a
 * `README.md` and `src/index.ts`).
 *
 * @example
 * ```ts
 * const workspace = createTestWorkspace({ files: { 'notes.md': 'hi' } })
 * const compiler = await createPlanCompiler(testPolicy(workspace.root))
 * workspace.remove()
 * ```
 */
export function createTestWorkspace(
  options: { readonly files?: Readonly<Record<string, string>> } = {},
): TestWorkspace {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'plan-ai-sdk-')))
  for (const [file, text] of Object.entries(options.files ?? defaultTestFiles)) {
    const path = join(root, file)
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, text)
  }
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) }
}

/**
 * A policy for tests: `view_file` (read a path), `write_file` (write a path and a string),
 * `run_command` (`git`, `ls`, `npm`), inside `root`, with `budgets`.
 */
export function testPolicy(root: string, budgets: Record<string, number> = {}): PolicyInput {
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
    commands: { allow: ['git', 'ls', 'npm'] },
    budgets,
  }
}
