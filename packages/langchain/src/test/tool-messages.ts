import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages'

/** The tool messages of a conversation, by tool call id. */
export function toolMessages(messages: readonly BaseMessage[]): Map<string, ToolMessage> {
  const out = new Map<string, ToolMessage>()
  for (const message of messages) {
    if (ToolMessage.isInstance(message)) out.set(message.tool_call_id, message)
  }
  return out
}

/**
 * Every tool call of every AI message that did not get exactly one answer before the next AI
 * message, with the number of answers it got; empty when the conversation is valid.
 *
 * @example
 * ```ts
 * expect(unansweredToolCalls(result.messages)).toEqual([])
 * ```
 */
export function unansweredToolCalls(
  messages: readonly BaseMessage[],
): { readonly id: string | undefined; readonly answers: number }[] {
  const problems: { id: string | undefined; answers: number }[] = []
  messages.forEach((message, index) => {
    if (!AIMessage.isInstance(message)) return
    const following = messages.slice(index + 1)
    const nextAi = following.findIndex((other) => AIMessage.isInstance(other))
    const window = nextAi === -1 ? following : following.slice(0, nextAi)
    for (const call of message.tool_calls ?? []) {
      const answers = window.filter(
        (other) => ToolMessage.isInstance(other) && other.tool_call_id === call.id,
      ).length
      if (answers !== 1) problems.push({ id: call.id, answers })
    }
  })
  return problems
}
