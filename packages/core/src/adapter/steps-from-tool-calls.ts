import { stringAt } from '@plan/shell/common'
import type { PlanStep } from '../schema/plan-schema.js'
import { MAX_STEP_ID_LENGTH, STEP_ID_PATTERN } from '../schema/step-id.js'

/** A tool call as a model made it, in any framework's words mapped to these. */
export interface ToolCallInput {
  /** The framework's id of the call; it becomes the step id when it is a valid, unique one. */
  readonly id?: string | undefined
  readonly tool: string
  /** The call's arguments, unchanged: the compiler judges them. */
  readonly args: unknown
  /**
   * The model turn the call came in (0, 1, …), for a transcript of several turns: each
   * turn's calls depend on the previous turn's, since they ran after them. Default 0.
   */
  readonly turn?: number | undefined
}

/** A plan step made from one tool call. */
export interface ToolCallStep {
  readonly id: string
  readonly tool: string
  readonly args: PlanStep['args']
  readonly depends_on?: readonly string[]
}

function isStepId(id: unknown): id is string {
  return typeof id === 'string' && id.length <= MAX_STEP_ID_LENGTH && STEP_ID_PATTERN.test(id)
}

/**
 * The step id of every call, in order: its own id when it is a valid step id not used by an
 * earlier call, else `call_<n>` (`n` its position from 1), made unique against every own id.
 */
function stepIds(calls: readonly ToolCallInput[]): string[] {
  // one call (the usual turn): its own id when valid, else `call_1`, which no own id can take
  const only = calls.length === 1 ? calls[0] : undefined
  if (only !== undefined) return [isStepId(only.id) ? only.id : 'call_1']
  const taken = new Set(calls.map((call) => call.id).filter(isStepId))
  const used = new Set<string>()
  return calls.map((call, index) => {
    let id = isStepId(call.id) && !used.has(call.id) ? call.id : `call_${index + 1}`
    if (id !== call.id) {
      const base = id
      for (let suffix = 2; taken.has(id) || used.has(id); suffix += 1) id = `${base}_${suffix}`
    }
    used.add(id)
    return id
  })
}

/**
 * Converts a model's tool calls into plan steps, one per call, in order: the step id is the
 * call's id when it is a valid, unique step id (else `call_<n>`), the arguments pass through
 * unchanged (the compiler judges them). Calls of one turn run in parallel, so they carry no
 * dependencies; with several turns (`turn`), each turn's calls depend on the previous turn's.
 *
 * @example
 * ```ts
 * const steps = stepsFromToolCalls(message.tool_calls.map((call) => ({ id: call.id, tool: call.name, args: call.args })))
 * const result = compiler.validate({ steps })
 * ```
 */
export function stepsFromToolCalls(calls: readonly ToolCallInput[]): ToolCallStep[] {
  const ids = stepIds(calls)
  const steps: ToolCallStep[] = []
  let previous: string[] = []
  let current: string[] = []
  let turn = calls[0]?.turn ?? 0
  calls.forEach((call, index) => {
    if ((call.turn ?? 0) !== turn) {
      previous = current
      current = []
      turn = call.turn ?? 0
    }
    const id = stringAt(ids, index)
    current.push(id)
    const args = call.args as PlanStep['args']
    steps.push(
      previous.length === 0
        ? { id, tool: call.tool, args }
        : { id, tool: call.tool, args, depends_on: previous },
    )
  })
  return steps
}
