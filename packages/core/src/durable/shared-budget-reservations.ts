import { createIssue, type PlanIssue } from '@plan/shell/common'
import type { Policy } from '../schema/policy-schema.js'
import type { BudgetReservation } from './guard-store.js'

/** A run's values of the keys shared budgets are separated by, e.g. `{ tenant: 'acme' }`. */
export type RunKeys = Readonly<Record<string, string>>

/** The reservations a call of `tool` needs, or why it cannot have them. */
export type SharedBudgetPlan =
  | { readonly success: true; readonly reservations: readonly BudgetReservation[] }
  | { readonly success: false; readonly issue: PlanIssue }

/**
 * The shared budgets of the policy that count a call of `tool`, as reservations for the run
 * with `keys` at time `nowMs`. Fails closed when the run lacks a key a budget is separated by.
 */
export function sharedBudgetReservations(
  policy: Policy,
  tool: string,
  keys: RunKeys | undefined,
  nowMs: number,
): SharedBudgetPlan {
  const reservations: BudgetReservation[] = []
  for (const [budget, spec] of Object.entries(policy.budgets.shared ?? {})) {
    if (spec.tools !== undefined && !spec.tools.includes(tool)) continue
    const key = keys !== undefined && Object.hasOwn(keys, spec.per) ? keys[spec.per] : undefined
    if (typeof key !== 'string' || key === '') {
      const message = `The shared budget ${JSON.stringify(budget)} counts calls per ${JSON.stringify(spec.per)}, but this run has no ${JSON.stringify(spec.per)} key.`
      return {
        success: false,
        issue: createIssue(
          'store_failed',
          message,
          ['budgets', 'shared', budget, 'per'],
          `Pass keys: { ${spec.per}: '…' } to the adapter with a guard store.`,
        ),
      }
    }
    const window = spec.windowSeconds
    const seconds = Math.floor(nowMs / 1000)
    reservations.push({
      budget,
      key,
      windowStart: window === undefined ? 0 : seconds - (seconds % window),
      ...(window === undefined ? {} : { windowSeconds: window }),
      maxCalls: spec.maxCalls,
    })
  }
  return { success: true, reservations }
}
