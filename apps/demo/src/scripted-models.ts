import { MockLanguageModelV4 } from 'ai/test'

/** One scripted model turn: tool calls, or a final answer. */
export type Turn =
  | {
      readonly calls: readonly {
        readonly id: string
        readonly tool: string
        readonly args: Record<string, unknown>
      }[]
    }
  | { readonly text: string }

type GenerateResult = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
}

/** The AI SDK's own mock model playing a script (generate calls). */
export function scriptedAiSdkModel(turns: readonly Turn[]): MockLanguageModelV4 {
  let index = 0
  return new MockLanguageModelV4({
    doGenerate: async (): Promise<GenerateResult> => {
      const turn = turns[index] ?? { text: 'Done.' }
      index += 1
      if ('text' in turn) {
        return {
          content: [{ type: 'text', text: turn.text }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage,
          warnings: [],
        }
      }
      return {
        content: turn.calls.map((call) => ({
          type: 'tool-call' as const,
          toolCallId: call.id,
          toolName: call.tool,
          input: JSON.stringify(call.args),
        })),
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      }
    },
  })
}
