import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages'
import type { PolicyInput } from '@plan/core'
import { tool } from 'langchain'
import { expect } from 'vitest'
import { z } from 'zod'

/** A temporary workspace with real tools whose every execution is recorded. */
export interface TestWorkspace {
  readonly root: string
  /** Every tool execution, in order: `tool:argument`. */
  readonly ran: string[]
  readonly viewFile: ReturnType<typeof makeTools>['viewFile']
  readonly writeFile: ReturnType<typeof makeTools>['writeFile']
  readonly runCommand: ReturnType<typeof makeTools>['runCommand']
  readonly tools: ReturnType<typeof makeTools>['tools']
  policy(extra?: Partial<PolicyInput>): PolicyInput
  cleanup(): Promise<void>
}

function makeTools(ran: string[], delayMs: () => number) {
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
  // Records the command instead of running it: the tests observe, they never execute shells.
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

/** Creates a workspace folder with `README.md`, `docs/guide.md` and a symlink that leads out. */
export async function createTestWorkspace(
  options: { delayMs?: number } = {},
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
  const made = makeTools(ran, () => options.delayMs ?? 0)
  return {
    root,
    ran,
    ...made,
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

/** Asserts that every tool call of every AI message got exactly one answer, before the next AI turn. */
export function expectEveryCallAnswered(messages: readonly BaseMessage[]): void {
  messages.forEach((message, index) => {
    if (!AIMessage.isInstance(message)) return
    const following = messages.slice(index + 1)
    const nextAi = following.findIndex((other) => AIMessage.isInstance(other))
    const window = nextAi === -1 ? following : following.slice(0, nextAi)
    for (const call of message.tool_calls ?? []) {
      const answers = window.filter(
        (other) => ToolMessage.isInstance(other) && other.tool_call_id === call.id,
      )
      expect(answers, `answers to tool call ${call.id}`).toHaveLength(1)
    }
  })
}

/** The tool messages of a conversation, by tool call id. */
export function toolMessages(messages: readonly BaseMessage[]): Map<string, ToolMessage> {
  const out = new Map<string, ToolMessage>()
  for (const message of messages) {
    if (ToolMessage.isInstance(message)) out.set(message.tool_call_id, message)
  }
  return out
}
