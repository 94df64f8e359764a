import type { PlanCompiler, ToolFunction } from '@plan/core'
import { errorMessage } from '@plan/core/adapter'
import { checkSandbox, createSandboxedReferenceTools } from '@plan/sandbox'
import { createReferenceTools, type ReferenceTools } from '@plan/tools'
import { tool as aiTool, type ToolExecutionOptions, type ToolSet } from 'ai'
import { tool as langchainTool } from 'langchain'
import { z } from 'zod'

/** One call that reached a tool (the effect, measured on the tool side). */
export interface ToolEffect {
  readonly tool: string
  readonly args: Record<string, unknown>
  /** What the tool returned (or threw), as the agent reads it; set once the tool is done. */
  output?: string
}

/** Commands the replay really runs; anything else is recorded and answered as if it ran. */
const REALLY_RUN = [
  /^npm test$/u,
  /^git (status|diff|log)\b/u,
  /^ls\b/u,
  /^cat\b/u,
  /^cp\b/u,
  /^grep\b/u,
]

const schemas = {
  view_file: z.object({ file: z.string() }),
  list_files: z.object({ dir: z.string().optional() }),
  write_file: z.object({ file: z.string(), content: z.string() }),
  run_command: z.object({ command: z.string() }),
  fetch_url: z.object({ url: z.string() }),
} as const

type ToolName = keyof typeof schemas
const NAMES = Object.keys(schemas) as ToolName[]

/** `PLAN_REPLAY_SANDBOX=none` runs the suite with commands outside the OS sandbox. */
export function replayWithoutSandbox(): boolean {
  return process.env.PLAN_REPLAY_SANDBOX === 'none'
}

/**
 * The reference tools, `run_command` inside the OS sandbox. Without bubblewrap the replay runs
 * commands unsandboxed outside CI; in CI a missing sandbox is an error.
 */
function referenceTools(compiler: PlanCompiler): ReferenceTools {
  if (replayWithoutSandbox())
    return createReferenceTools(compiler, { runCommand: { timeoutMs: 120_000, sandbox: 'none' } })
  if (checkSandbox(compiler).available || process.env.CI === 'true')
    return createSandboxedReferenceTools(compiler, { runCommand: { timeoutMs: 120_000 } })
  return createReferenceTools(compiler, { runCommand: { timeoutMs: 120_000, sandbox: 'none' } })
}

/**
 * The replay's tools: the reference tools of `@plan/tools` on the temporary repository, and a
 * `fetch_url` that serves canned pages. Every call that reaches a tool is recorded first.
 */
export function createReplayTools(
  compiler: PlanCompiler,
  pages: Readonly<Record<string, string>>,
  effects: ToolEffect[],
): Record<ToolName, ToolFunction> {
  const reference = referenceTools(compiler).tools
  const record =
    (name: ToolName, run: ToolFunction): ToolFunction =>
    async (args, context) => {
      const effect: ToolEffect = { tool: name, args: { ...args } }
      effects.push(effect)
      try {
        const output = await run(args, context)
        effect.output = asText(output)
        return output
      } catch (error) {
        effect.output = errorMessage(error)
        throw error
      }
    }
  return {
    view_file: record('view_file', reference.view_file),
    list_files: record('list_files', reference.list_files),
    write_file: record('write_file', reference.write_file),
    run_command: record('run_command', async (args, context) => {
      const command = String(args.command ?? '')
      if (REALLY_RUN.some((pattern) => pattern.test(command)))
        return reference.run_command(args, context)
      return { exitCode: 0, stdout: '', stderr: '', simulated: true }
    }),
    fetch_url: record('fetch_url', async (args) => {
      const url = String(args.url ?? '')
      const page = pages[url]
      if (page === undefined) throw new Error(`404 Not Found: ${url}`)
      if (page.startsWith('ERROR:')) throw new Error(page.slice('ERROR:'.length))
      return page
    }),
  }
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** The tools as LangChain tools. */
export function langchainTools(tools: Record<ToolName, ToolFunction>) {
  return NAMES.map((name) =>
    langchainTool(
      async (input: Record<string, unknown>) =>
        asText(
          await tools[name](input as never, { signal: new AbortController().signal, stepId: name }),
        ),
      { name, description: `The ${name} tool.`, schema: schemas[name] },
    ),
  )
}

/** The tools as an AI SDK tool set. */
export function aiSdkTools(tools: Record<ToolName, ToolFunction>): ToolSet {
  const set: ToolSet = {}
  for (const name of NAMES) {
    set[name] = aiTool({
      description: `The ${name} tool.`,
      inputSchema: schemas[name] as z.ZodType<Record<string, unknown>>,
      execute: async (input: Record<string, unknown>, options: ToolExecutionOptions<unknown>) =>
        tools[name](input as never, {
          signal: options.abortSignal ?? new AbortController().signal,
          stepId: options.toolCallId,
        }),
    })
  }
  return set
}
