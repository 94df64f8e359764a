import type { PlanIssue } from '@plan/shell/common'
import type { CompiledPlan } from '../types/compiled-plan.js'
import type { PlanCompiler } from '../types/plan-compiler.js'

/** One rejected attempt of a planner: what the model answered and why it was rejected. */
export interface PlanAttempt {
  /** The plan the model returned, or undefined when it returned no plan object. */
  readonly plan: unknown
  readonly issues: readonly PlanIssue[]
}

/**
 * What a planner returns, in every adapter. The planner is named `generatePlan(options)` in
 * each framework (as the AI SDK's `generateText`): it asks the framework's model for a plan
 * narrowed to the policy (`compiler.planSchema()`), compiles it, and sends a rejected plan back
 * with its issues a bounded number of times; a plan identical to a rejected one ends the loop.
 */
export type GeneratePlanResult = {
  /** Plans asked for, the approved one included. */
  readonly attempts: number
  /** The rejected attempts (before the approved one). */
  readonly rejected: readonly PlanAttempt[]
} & (
  | { readonly success: true; readonly plan: CompiledPlan; readonly issues: readonly [] }
  | {
      readonly success: false
      /** The issues of the last attempt; `replan_loop` when a rejected plan came back. */
      readonly issues: readonly PlanIssue[]
      /** The last plan the model proposed, as it came. */
      readonly lastPlan: unknown
    }
)

/** Every adapter's `generatePlan` options beside `model` and `prompt`, alike in each framework. */
export interface GeneratePlanSharedOptions {
  /** The compiler (and so the policy) every plan is checked with, or the promise of one. */
  readonly compiler: PlanCompiler | PromiseLike<PlanCompiler>
  /**
   * How many times a rejected plan is sent back with its issues (re-plans after the first). Default
   * and cap: the policy's `budgets.maxReplans` (the caller may only lower it).
   */
  readonly maxReplans?: number | undefined
  /** Extra instructions, added after the planner's own. */
  readonly instructions?: string | undefined
  /** Cancels the model calls. */
  readonly abortSignal?: AbortSignal | undefined
}
