import type { PlanGuard } from '@plan/core'
import type { StopCondition, ToolSet } from 'ai'
import { hadLastWord } from './last-word.js'
import { modeOf, type PlanMode } from './plan-mode.js'

/** Options for {@link planStopWhen}. */
export interface PlanStopWhenOptions {
  /** `'plan'` or `'turn'`; by default `'plan'` when the guard holds a plan when this is created. */
  readonly mode?: PlanMode
  /**
   * Plan mode: stop as soon as every step of the plan is done, failed or skipped. Default
   * false: the model gets one more step to answer (it gets no tools then).
   */
  readonly stopWhenComplete?: boolean
}

/**
 * A `stopWhen` condition that ends the tool loop when the guard has stopped the run (an
 * exhausted budget, a loop, a deadline) or, in plan mode, when the plan is complete. Combine
 * it with a step limit: `stopWhen: [planStopWhen(guard), stepCountIs(50)]`.
 *
 * @example
 * ```ts
 * await generateText({ model, tools, prompt, stopWhen: [planStopWhen(guard), stepCountIs(50)] })
 * ```
 */
export function planStopWhen<TOOLS extends ToolSet = ToolSet>(
  guard: PlanGuard,
  options: PlanStopWhenOptions = {},
): StopCondition<TOOLS> {
  const mode = modeOf(guard, options.mode)
  const stopWhenComplete = options.stopWhenComplete ?? false
  return ({ steps }) => {
    // A stopped run ends once the model has read why (its last step, see planPrepareStep).
    if (guard.stopReason() !== undefined)
      return hadLastWord(guard) || (steps.at(-1)?.toolCalls.length ?? 0) === 0
    return mode === 'plan' && stopWhenComplete && guard.isComplete()
  }
}
