import type { PlanStep } from '@plan/core'

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

const STEP_ID = /^[A-Za-z0-9_-]{1,128}$/

/**
 * The step id of every tool call, in order: the tool call id when it is a valid, unique step
 * id, otherwise `call_<n>` (n counting from 1), so providers with unusual ids still compile.
 */
export function stepIdsForToolCalls(toolCalls: readonly LangChainToolCall[]): string[] {
  const taken = new Set<string>()
  for (const call of toolCalls)
    if (call.id !== undefined && STEP_ID.test(call.id)) taken.add(call.id)
  const used = new Set<string>()
  return toolCalls.map((call, index) => {
    let id = call.id
    if (id === undefined || !STEP_ID.test(id) || used.has(id)) {
      let suffix = index + 1
      id = `call_${suffix}`
      while (taken.has(id) || used.has(id)) {
        suffix += toolCalls.length
        id = `call_${suffix}`
      }
    }
    used.add(id)
    return id
  })
}

/**
 * Converts the tool calls of one model turn into plan steps: the step id is the tool call id,
 * the tool is the call's name and the arguments are passed through unchanged (the compiler
 * checks them). Calls in one turn run in parallel, so the steps carry no dependencies.
 *
 * @example
 * ```ts
 * const steps = stepsFromToolCalls(aiMessage)
 * const result = compiler.validate({ steps })
 * ```
 */
export function stepsFromToolCalls(message: ToolCallSource): PlanStep[] {
  const toolCalls = message.tool_calls ?? []
  const ids = stepIdsForToolCalls(toolCalls)
  return toolCalls.map((call, index) => ({
    id: ids[index] as string,
    tool: call.name,
    args: call.args as Record<string, unknown>,
  }))
}
