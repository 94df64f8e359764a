import type { ToolCallStep } from '@plan/core'
import { stepsFromToolCalls as stepsFromCalls } from '@plan/core/adapter'

/** The part of an AI SDK tool call that becomes a plan step. */
export interface ToolCallLike {
  readonly toolCallId: string
  readonly toolName: string
  readonly input: unknown
}

/**
 * Converts a model's tool calls (`result.toolCalls`, `step.toolCalls`) into plan steps with
 * no dependencies, one per call, in order, with `@plan/core`'s `stepsFromToolCalls` (the same
 * in every adapter): the step id is the tool call id when it is a valid step id (letters,
 * digits, `_`, `-`; at most 128) not taken by an earlier call, else `call_<n>` (`n` the call's
 * position from 1), made unique against every call's own id.
 *
 * @example
 * ```ts
 * const { toolCalls } = await generateText({ model, tools, prompt })
 * const checked = compiler.validate({ steps: stepsFromToolCalls(toolCalls) })
 * ```
 */
export function stepsFromToolCalls(toolCalls: readonly ToolCallLike[]): ToolCallStep[] {
  return stepsFromCalls(
    toolCalls.map((call) => ({ id: call.toolCallId, tool: call.toolName, args: call.input })),
  )
}
