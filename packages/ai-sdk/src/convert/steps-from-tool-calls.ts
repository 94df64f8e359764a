/** The part of an AI SDK tool call that becomes a plan step. */
export interface ToolCallLike {
  readonly toolCallId: string
  readonly toolName: string
  readonly input: unknown
}

/** A plan step made from one tool call; `@plan/core` validates it when the plan is compiled. */
export interface ToolCallStep {
  readonly id: string
  readonly tool: string
  /** The call's input, unchanged; anything but a JSON object is rejected at compile time. */
  readonly args: unknown
}

const stepIdPattern = /^[A-Za-z0-9_-]{1,128}$/

/**
 * Converts a model's tool calls (`result.toolCalls`, `step.toolCalls`) into plan steps with
 * no dependencies, one per call, in order. The step id is the tool call id when it is a
 * valid step id (letters, digits, `_`, `-`; at most 128), else `call-<n>`; duplicates get a
 * numeric suffix.
 *
 * @example
 * ```ts
 * const { toolCalls } = await generateText({ model, tools, prompt })
 * const checked = compiler.validate({ steps: stepsFromToolCalls(toolCalls) })
 * ```
 */
export function stepsFromToolCalls(toolCalls: readonly ToolCallLike[]): ToolCallStep[] {
  const used = new Set<string>()
  return toolCalls.map((call, index) => {
    const base =
      typeof call.toolCallId === 'string' && stepIdPattern.test(call.toolCallId)
        ? call.toolCallId
        : `call-${index + 1}`
    let id = base
    for (let suffix = 2; used.has(id); suffix += 1) id = `${base.slice(0, 120)}-${suffix}`
    used.add(id)
    return { id, tool: call.toolName, args: call.input }
  })
}
