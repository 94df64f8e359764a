import { type Tool, tool } from 'ai'
import { type Mock, vi } from 'vitest'
import { z } from 'zod'

type FileInput = { file: string }
type WriteInput = { file: string; content: string }
type CommandInput = { command: string }

/** The tools of the tests and the spies behind their `execute`. */
export interface TestTools {
  readonly tools: {
    view_file: Tool<FileInput, string>
    write_file: Tool<WriteInput, string>
    run_command: Tool<CommandInput, string>
    delete_file: Tool<FileInput, string>
  }
  readonly spies: {
    viewFile: Mock<(input: FileInput) => Promise<string>>
    writeFile: Mock<(input: WriteInput) => Promise<string>>
    runCommand: Mock<(input: CommandInput) => Promise<string>>
    deleteFile: Mock<(input: FileInput) => Promise<string>>
  }
}

/** The tool set of the tests; `delete_file` is not in the policy. Each execute is a spy. */
export function testTools(): TestTools {
  const viewFile = vi.fn(async ({ file }: FileInput) => `contents of ${file}`)
  const writeFile = vi.fn(async ({ file }: WriteInput) => `wrote ${file}`)
  const runCommand = vi.fn(async ({ command }: CommandInput) => `ran ${command}`)
  const deleteFile = vi.fn(async ({ file }: FileInput) => `deleted ${file}`)
  const tools = {
    view_file: tool({
      description: 'Read a file',
      inputSchema: z.object({ file: z.string() }),
      execute: viewFile,
    }),
    write_file: tool({
      description: 'Write a file',
      inputSchema: z.object({ file: z.string(), content: z.string() }),
      execute: writeFile,
    }),
    run_command: tool({
      description: 'Run a command',
      inputSchema: z.object({ command: z.string() }),
      execute: runCommand,
    }),
    delete_file: tool({
      description: 'Delete a file',
      inputSchema: z.object({ file: z.string() }),
      execute: deleteFile,
    }),
  }
  return { tools, spies: { viewFile, writeFile, runCommand, deleteFile } }
}
