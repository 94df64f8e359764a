import { PlanError } from '@plan/shell/common'
import { errorMessage } from '../util/error-message.js'
import type { GuardStore, SavedRunState } from './guard-store.js'

/**
 * `store.load(runId)` as an adapter needs it: an unreadable store is a `store_failed` `PlanError`
 * (its message ends with `consequence`, such as "; no tool call can be authorized"); a store
 * refusing its state (a signed store: `signature_invalid`) throws its own `PlanError`, passed on.
 */
export async function loadSavedState(
  store: GuardStore,
  runId: string,
  consequence = '',
): Promise<SavedRunState | undefined> {
  try {
    return await store.load(runId)
  } catch (error) {
    if (PlanError.isInstance(error)) throw error
    const message = `The guard store could not be read (${errorMessage(error)})${consequence}.`
    throw new PlanError(message, { code: 'store_failed', cause: error })
  }
}
