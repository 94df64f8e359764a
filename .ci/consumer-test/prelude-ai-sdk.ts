// biome-ignore-all lint/correctness: the README snippet appended to this prelude uses these names
// Free names of the AI SDK README snippets, backed by real tools and a scripted mock model so
// that the snippet runs offline: the model reads one file, then answers.
import { definePolicy } from '@plan/core'
import { jsonSchema, tool } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
}
let turn = 0
const model = new MockLanguageModelV4({
  doGenerate: async () =>
    turn++ === 0
      ? {
          content: [
            {
              type: 'tool-call' as const,
              toolCallId: 'call_1',
              toolName: 'view_file',
              input: JSON.stringify({ file: 'package.json' }),
            },
          ],
          finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
          usage,
          warnings: [],
        }
      : {
          content: [{ type: 'text' as const, text: 'done' }],
          finishReason: { unified: 'stop' as const, raw: 'stop' },
          usage,
          warnings: [],
        },
})
const input = jsonSchema<Record<string, string>>({ type: 'object' })
const view_file = tool({ inputSchema: input, execute: async () => 'contents' })
const write_file = tool({ inputSchema: input, execute: async () => 'written' })
const run_command = tool({ inputSchema: input, execute: async () => 'ran' })
const prompt = 'Read package.json'
const policy = definePolicy({
  version: 1,
  workspace: { roots: [process.cwd()] },
  tools: {
    view_file: { args: { file: { type: 'path', access: 'read' } } },
    write_file: { args: { file: { type: 'path', access: 'write' }, content: { type: 'string' } } },
    run_command: { args: { command: { type: 'command' } } },
  },
  commands: { allow: ['ls'] },
})
