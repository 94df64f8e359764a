import type { BaseChatModel } from '@langchain/core/language_models/chat_models'
import type { BaseMessage } from '@langchain/core/messages'
import type { GeneratePlanResult, PlanCompiler } from '@plan/core'
import { checkMaxReplans, generatePlan } from './generate-plan.js'

/** Options for {@link createPlanner}. */
export interface PlannerOptions {
  /** A chat model that supports `withStructuredOutput`. */
  readonly model: BaseChatModel
  /** The compiler (and so the policy) every plan is checked with. */
  readonly compiler: PlanCompiler | Promise<PlanCompiler>
  /**
   * How many times a rejected plan is sent back with its issues. Defaults to the policy's
   * `budgets.maxReplans`, and never exceeds it.
   */
  readonly maxReplans?: number
  /** Extra instructions appended to the planner's system prompt. */
  readonly instructions?: string
}

/** What a planner returns: `@plan/core`'s `GeneratePlanResult`. */
export type PlannerResult = GeneratePlanResult

/** Asks a chat model for plans. */
export interface Planner {
  /** Plans a task; a rejected plan goes back to the model with its issues, a bounded number of times. */
  plan(task: string | readonly BaseMessage[]): Promise<PlannerResult>
}

/**
 * A planner bound to a model and a compiler: `planner.plan(task)` is
 * {@link generatePlan}`({ ...options, prompt: task })`.
 *
 * @deprecated Use `generatePlan`, the planner's name in every `@plan` adapter.
 * @example
 * ```ts
 * const planner = createPlanner({ model, compiler: await createPlanCompiler(policy) })
 * const result = await planner.plan('Summarise README.md into NOTES.md')
 * ```
 */
export function createPlanner(options: PlannerOptions): Planner {
  checkMaxReplans(options.maxReplans)
  return { plan: (task) => generatePlan({ ...options, prompt: task }) }
}
