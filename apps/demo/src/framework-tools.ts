import type { ToolFunction } from '@plan/core'
import { tool as aiTool, type ToolExecutionOptions, type ToolSet } from 'ai'
import { tool as langchainTool } from 'langchain'
import { z } from 'zod'

const schemas = {
  view_file: z.object({ file: z.string().describe('Path of the file, relative to the workspace') }),
  list_files: z.object({ dir: z.string().optional().describe('Folder to list') }),
  write_file: z.object({ file: z.string(), content: z.string() }),
  run_command: z.object({ command: z.string().describe('One command, e.g. "npm test"') }),
  rewrite_logging: z.object({ file: z.string() }),
} as const

const descriptions: Record<keyof typeof schemas, string> = {
  view_file: 'Read a text file of the project.',
  list_files: 'List a folder of the project.',
  write_file: 'Write a whole text file of the project.',
  run_command: 'Run one command in the project folder (no shell).',
  rewrite_logging: 'Replace console.log calls with log.info in one file.',
}

const names = Object.keys(schemas) as (keyof typeof schemas)[]

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** The demo tools as LangChain tools (what an existing LangChain agent would have). */
export function langchainTools(tools: Record<string, ToolFunction>) {
  return names.map((name) =>
    langchainTool(
      async (input: Record<string, unknown>) =>
        asText(
          await (tools[name] as ToolFunction)(input as never, {
            signal: new AbortController().signal,
            stepId: name,
          }),
        ),
      { name, description: descriptions[name], schema: schemas[name] },
    ),
  )
}

/** The demo tools as an AI SDK tool set (what an existing AI SDK app would have). */
export function aiSdkTools(tools: Record<string, ToolFunction>): ToolSet {
  const set: ToolSet = {}
  for (const name of names) {
    set[name] = aiTool({
      description: descriptions[name],
      inputSchema: schemas[name] as z.ZodType<Record<string, unknown>>,
      execute: async (input: Record<string, unknown>, options: ToolExecutionOptions<unknown>) =>
        (tools[name] as ToolFunction)(input as never, {
          signal: options.abortSignal ?? new AbortController().signal,
          stepId: options.toolCallId,
        }),
    })
  }
  return set
}
