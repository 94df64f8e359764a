import type { PlanStep } from '../schema/plan-schema.js'

/** The object form of a plan as written: `{ goal?, steps }`. */
export interface PlanInput {
  goal?: string | undefined
  steps: PlanStep[]
}

/**
 * Returns the plan, typed: a plain literal type-checks as a plan without `as const` or `satisfies`;
 * a misspelt key is flagged where written. Types only; `compiler.validate` checks against a policy.
 *
 * @example
 * ```ts
 * import { definePlan } from '@plan/core'
 *
 * const plan = definePlan({
 *   steps: [
 *     { id: 'read', tool: 'view_file', args: { file: 'src/auth.ts' } },
 *     { id: 'test', tool: 'run_command', args: { command: 'npm test' }, depends_on: ['read'] },
 *   ],
 * })
 * ```
 */
export function definePlan(plan: PlanStep[]): PlanStep[]
export function definePlan(plan: PlanInput): PlanInput
export function definePlan(plan: PlanInput | PlanStep[]): PlanInput | PlanStep[] {
  return plan
}
