import type { ToolCallStep } from '@plan/core'
import { stepsFromToolCalls as stepsFromCalls } from '@plan/core/adapter'

/** A tool call as LangChain reports it on `AIMessage.tool_calls`. */
export interface LangChainToolCall {
  readonly id?: string | undefined
  readonly name: string
  readonly args: unknown
}

/** Anything that carries tool calls: an `AIMessage`, or a plain `{ tool_calls }` object. */
export interface ToolCallSource {
  readonly tool_calls?: readonly LangChainToolCall[] | undefined
}

/**
 * Converts the tool calls of one model turn into plan steps, with `@plan/core`'s
 * `stepsFromToolCalls` (the same in every adapter): the step id is the tool call id when it is
 * a valid, unique step id (else `call_<n>`), the tool is the call's name and the arguments are
 * passed through unchanged (the compiler checks them). Calls in one turn run in parallel, so
 * the steps carry no dependencies.
 *
 * @example
 * ```ts
 * const steps = stepsFromToolCalls(aiMessage)
 * const result = compiler.validate({ steps })
 * ```
 */
export function stepsFromToolCalls(message: ToolCallSource): ToolCallStep[] {
  return stepsFromCalls(
    (message.tool_calls ?? []).map((call) => ({ id: call.id, tool: call.name, args: call.args })),
  )
}
