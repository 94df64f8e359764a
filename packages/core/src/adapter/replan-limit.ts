import { PlanError } from '@plan/shell/common'
import type { PlanCompiler } from '../types/plan-compiler.js'

/**
 * How many re-plans a planner may ask for: `maxReplans` when given, the policy's
 * `budgets.maxReplans` otherwise, and never more than the policy's. Throws `PlanError`
 * (`invalid_configuration`) for a `maxReplans` that is not a whole number of at least 0.
 *
 * @example
 * ```ts
 * const replans = replanLimit(compiler, options.maxReplans) // attempts: replans + 1
 * ```
 */
export function replanLimit(compiler: PlanCompiler, maxReplans: number | undefined): number {
  const ceiling = compiler.policy.policy.budgets.maxReplans
  if (maxReplans === undefined) return ceiling
  if (!Number.isSafeInteger(maxReplans) || maxReplans < 0) {
    throw new PlanError(
      `maxReplans must be a whole number of at least 0, not ${String(maxReplans)}; leave it out for the policy's ${ceiling}.`,
      { code: 'invalid_configuration' },
    )
  }
  return Math.min(maxReplans, ceiling)
}
