import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

/** A temporary workspace for tests, beside a folder outside it. */
export interface TestWorkspace {
  /** The workspace root, symlinks resolved (so paths the guard resolves compare equal). */
  readonly root: string
  /** A folder beside the root, outside the workspace (by default holding `secret.txt`). */
  readonly outside: string
  /** Deletes the workspace and the folder beside it. */
  remove(): Promise<void>
  /** The same as {@link TestWorkspace.remove}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>
}

/** Options for {@link createTestWorkspace}. */
export interface TestWorkspaceOptions {
  /**
   * The files to write, relative path → text, and nothing else (`outside` stays empty).
   * Default {@link defaultTestFiles}, the link `escape` and `outside/secret.txt`.
   */
  readonly files?: Readonly<Record<string, string>> | undefined
}

/** The files of a {@link createTestWorkspace} without `files`. */
export const defaultTestFiles: Readonly<Record<string, string>> = {
  'README.md': '# Demo\n',
  'docs/guide.md': 'Guide\n',
  'src/index.ts': 'export const answer = 42\n',
}

/**
 * Creates a temporary workspace beside a folder outside it, the same for the tests of every
 * adapter. It holds `files`; by default {@link defaultTestFiles} and a symbolic link `escape`
 * that leads outside (`escape/secret.txt` reads `outside/secret.txt`).
 *
 * @example
 * ```ts
 * await using workspace = await createTestWorkspace({ files: { 'notes.md': 'hi' } })
 * const compiler = await createPlanCompiler(testPolicy(workspace.root))
 * ```
 */
export async function createTestWorkspace(
  options: TestWorkspaceOptions = {},
): Promise<TestWorkspace> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'plan-test-')))
  const root = join(base, 'repo')
  const outside = join(base, 'outside')
  await mkdir(root)
  await mkdir(outside)
  for (const [file, text] of Object.entries(options.files ?? defaultTestFiles)) {
    const path = join(root, file)
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, text)
  }
  if (options.files === undefined) {
    await writeFile(join(outside, 'secret.txt'), 'secret\n')
    await symlink(outside, join(root, 'escape'))
  }
  const remove = () => rm(base, { recursive: true, force: true })
  return { root, outside, remove, [Symbol.asyncDispose]: remove }
}
