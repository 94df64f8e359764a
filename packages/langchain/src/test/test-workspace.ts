import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { PolicyInput } from '@plan/core'
import { tool } from 'langchain'
import { z } from 'zod'

function recordingTools(ran: string[], delayMs: () => number) {
  const wait = () => new Promise((resolve) => setTimeout(resolve, delayMs()))
  const viewFile = tool(
    async ({ file }) => {
      ran.push(`view_file:${file}`)
      await wait()
      return readFile(file, 'utf8')
    },
    { name: 'view_file', description: 'Read a file.', schema: z.object({ file: z.string() }) },
  )
  const writeFileTool = tool(
    async ({ file, content }) => {
      ran.push(`write_file:${file}`)
      await writeFile(file, content)
      return { written: file, bytes: content.length }
    },
    {
      name: 'write_file',
      description: 'Write a file.',
      schema: z.object({ file: z.string(), content: z.string() }),
    },
  )
  // Records the command instead of running it: tests observe, they never execute shells.
  const runCommand = tool(
    async ({ command }) => {
      ran.push(`run_command:${command}`)
      return `ran ${command}`
    },
    {
      name: 'run_command',
      description: 'Run a command.',
      schema: z.object({ command: z.string() }),
    },
  )
  return {
    viewFile,
    writeFile: writeFileTool,
    runCommand,
    tools: [viewFile, writeFileTool, runCommand],
  }
}

type RecordingTools = ReturnType<typeof recordingTools>

/** A temporary workspace with real LangChain tools whose every execution is recorded. */
export interface TestWorkspace {
  /** The workspace root, symlinks resolved (paths the guard resolves compare equal). */
  readonly root: string
  /** Every tool execution, in order: `tool:argument`. */
  readonly ran: string[]
  /** Reads a file (`file`). */
  readonly viewFile: RecordingTools['viewFile']
  /** Writes `content` to a file (`file`). */
  readonly writeFile: RecordingTools['writeFile']
  /** Records a command (`command`) without running it. */
  readonly runCommand: RecordingTools['runCommand']
  /** The three tools. */
  readonly tools: RecordingTools['tools']
  /** A policy for the three tools inside `root` (commands `git`, `ls`, `echo`), with `extra` keys. */
  policy(extra?: Partial<PolicyInput>): PolicyInput
  /** Deletes the workspace and the folder beside it. */
  cleanup(): Promise<void>
}

/**
 * Creates a temporary workspace holding `README.md`, `docs/guide.md` and a symlink `escape`
 * that leads to a folder outside it, with three recording tools (`view_file`, `write_file`,
 * `run_command`) and a matching policy. `delayMs` makes `view_file` slow, for parallel calls.
 *
 * @example
 * ```ts
 * const workspace = await createTestWorkspace()
 * const agent = createAgent({
 *   model,
 *   tools: workspace.tools,
 *   middleware: [planGuardMiddleware({ policy: workspace.policy() })],
 * })
 * await workspace.cleanup()
 * ```
 */
export async function createTestWorkspace(
  options: { readonly delayMs?: number } = {},
): Promise<TestWorkspace> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'plan-langchain-')))
  const root = join(base, 'repo')
  const outside = join(base, 'outside')
  await mkdir(join(root, 'docs'), { recursive: true })
  await mkdir(outside)
  await writeFile(join(root, 'README.md'), '# Demo\n')
  await writeFile(join(root, 'docs', 'guide.md'), 'Guide\n')
  await writeFile(join(outside, 'secret.txt'), 'secret\n')
  await symlink(outside, join(root, 'escape'))
  const ran: string[] = []
  return {
    root,
    ran,
    ...recordingTools(ran, () => options.delayMs ?? 0),
    policy(extra = {}) {
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
        commands: { allow: ['git', 'ls', 'echo'] },
        ...extra,
      }
    },
    cleanup: () => rm(base, { recursive: true, force: true }),
  }
}
