import { scriptedModel } from '@plan/ai-sdk/test'
import type { MockLanguageModelV4 } from 'ai/test'

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

/** The AI SDK's own mock model (`@plan/ai-sdk/test`) playing a script (generate calls). */
export function scriptedAiSdkModel(turns: readonly Turn[]): MockLanguageModelV4 {
  return scriptedModel((index) => {
    const turn = turns[index] ?? { text: 'Done.' }
    if ('text' in turn) return turn
    return { calls: turn.calls.map((call) => ({ id: call.id, tool: call.tool, input: call.args })) }
  })
}
