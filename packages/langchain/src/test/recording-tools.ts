import { readFile, writeFile } from 'node:fs/promises'
import { tool } from 'langchain'
import { z } from 'zod'

function makeTools(ran: string[], delayMs: number) {
  const wait = () => new Promise((resolve) => setTimeout(resolve, delayMs))
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

/** Real LangChain tools that record every execution, and the record. */
export interface RecordingTools {
  /** Every tool execution, in order: `tool:argument`. */
  readonly ran: string[]
  /** Reads a file (`file`). */
  readonly viewFile: ReturnType<typeof makeTools>['viewFile']
  /** Writes `content` to a file (`file`). */
  readonly writeFile: ReturnType<typeof makeTools>['writeFile']
  /** Records a command (`command`) without running it. */
  readonly runCommand: ReturnType<typeof makeTools>['runCommand']
  /** The three tools. */
  readonly tools: ReturnType<typeof makeTools>['tools']
}

/**
 * Three real LangChain tools for the policy of `testPolicy` (`view_file`, `write_file`,
 * `run_command`) that record each execution in `ran`; `run_command` records the command and
 * runs nothing. `delayMs` makes `view_file` slow, for parallel calls.
 *
 * @example
 * ```ts
 * await using workspace = await createTestWorkspace()
 * const { tools, ran } = recordingTools()
 * const agent = createAgent({
 *   model,
 *   tools,
 *   middleware: [planGuardMiddleware({ policy: testPolicy(workspace.root) })],
 * })
 * ```
 */
export function recordingTools(options: { readonly delayMs?: number } = {}): RecordingTools {
  const ran: string[] = []
  return { ran, ...makeTools(ran, options.delayMs ?? 0) }
}
