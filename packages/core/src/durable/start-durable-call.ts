import { createIssue, type PlanIssue } from '@plan/shell/common'
import type { Policy } from '../schema/policy-schema.js'
import { errorMessage } from '../util/error-message.js'
import { runIssue } from '../util/run-issue.js'
import type { BudgetReservation, GuardStore, SavedRunState } from './guard-store.js'
import { type RunKeys, sharedBudgetReservations } from './shared-budget-reservations.js'

/** Options of {@link startDurableCall}. */
export interface StartDurableCallOptions {
  /** Where the run's state and the shared budgets live; undefined when the run has no store. */
  readonly store: GuardStore | undefined
  readonly runId: string
  readonly policy: Policy
  /** The tool about to run, and the approved step it runs as. */
  readonly tool: string
  readonly stepId: string
  /** The run's keys for shared budgets (`{ tenant: 'acme' }`). */
  readonly keys?: RunKeys
  /**
   * The run's state with this call already counted (the guard authorized it), or a function
   * that saves it (such as {@link saveGuardState}, which saves only what changed).
   */
  readonly saved: (() => SavedRunState) | { readonly save: () => Promise<void> }
  /** Clock, for tests. Defaults to `Date.now`. */
  readonly now?: () => number
}

/**
 * What an adapter does between the guard authorizing a call and the tool's start: counts it against
 * the policy's shared budgets, then saves the run's state (call counted, its step running) to the
 * store. Resolves to the issues forbidding the call (none: the tool may start). A failing store, a
 * full budget or a shared budget without a store forbids it (fail closed). A reservation is given
 * back only if the save after it failed (the tool provably never started) and the store can.
 */
export async function startDurableCall(
  options: StartDurableCallOptions,
): Promise<readonly PlanIssue[]> {
  const { store, stepId } = options
  const plan = sharedBudgetReservations(
    options.policy,
    options.tool,
    options.keys,
    (options.now ?? Date.now)(),
  )
  if (!plan.success) return [{ ...plan.issue, stepId }]
  if (store === undefined) {
    const first = plan.reservations[0]
    if (first === undefined) return []
    const message = `The shared budget ${JSON.stringify(first.budget)} needs a guard store, and this run has none.`
    return [runIssue('store_failed', message, 'Give the adapter a guard store.', stepId)]
  }
  let reserved = false
  try {
    if (plan.reservations.length > 0) {
      const result = await store.reserve(plan.reservations)
      if (!result.reserved) return [exhaustedIssue(result.reservation, stepId)]
      reserved = true
    }
    const saved = options.saved
    if (typeof saved === 'function') await store.save(options.runId, saved())
    else await saved.save()
    return []
  } catch (error) {
    // The save failed here, so the tool was never called: the reservation can be given back.
    if (reserved) await store.release?.(plan.reservations).catch(() => undefined)
    return [
      runIssue(
        'store_failed',
        `The guard store could not record the call before it ran (${errorMessage(error)}); it did not run.`,
        'Try again once the store is reachable.',
        stepId,
      ),
    ]
  }
}

function exhaustedIssue(reservation: BudgetReservation, stepId: string): PlanIssue {
  const { budget, key, maxCalls, windowStart } = reservation
  return createIssue(
    'budget_exhausted',
    `The shared budget ${JSON.stringify(budget)} of ${JSON.stringify(key)} has used its ${maxCalls} calls${windowStart === 0 ? '' : ' in this window'}.`,
    ['budgets', 'shared', budget],
    'Stop calling this tool and report what was done.',
    stepId,
  )
}

/**
 * Saves the run's state after a call ended. A failure is ignored: the store still holds the
 * state written before the call, so a resume treats the call as interrupted (never as not run).
 */
export async function finishDurableCall(
  store: GuardStore | undefined,
  runId: string,
  saved: SavedRunState | (() => Promise<void>),
): Promise<void> {
  if (store === undefined) return
  try {
    await (typeof saved === 'function' ? saved() : store.save(runId, saved))
  } catch {
    // See above: the write-ahead state is the conservative one.
  }
}
