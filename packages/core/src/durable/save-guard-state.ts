import type { PlanGuard } from '../types/plan-guard.js'
import type { GuardStore, RunWriter } from './guard-store.js'

/** Where {@link saveGuardState} saves a guard's run. */
export interface GuardSaveTarget {
  readonly store: GuardStore
  readonly runId: string
  /** The run's writer (compare-and-set), if it has one. */
  readonly writer?: RunWriter
  /** A new, higher revision of the run at each call. */
  readonly nextRevision: () => number
}

/**
 * Saves a guard's run to its store: as what changed since the revision the store last confirmed,
 * when it takes changes (`saveChanges`) and can apply them, so a save costs what the call changed;
 * else the whole snapshot. Resolves once the store has it; rejects as the store does.
 *
 * @example
 * ```ts
 * let revision = 0
 * await saveGuardState(guard, { store, runId: 'run-1', nextRevision: () => ++revision })
 * ```
 */
export async function saveGuardState(guard: PlanGuard, target: GuardSaveTarget): Promise<void> {
  const { store, runId, writer } = target
  const owner = writer === undefined ? {} : { writer }
  const revision = target.nextRevision()
  const changes = store.saveChanges === undefined ? undefined : guard.changesSince(revision)
  if (
    changes !== undefined &&
    (await store.saveChanges?.(runId, { revision, changes, ...owner }))
  ) {
    guard.savedAs(revision)
    return
  }
  // Nothing was written under this revision: the whole state takes it.
  await store.save(runId, { revision, state: guard.snapshotAs(revision), ...owner })
  guard.savedAs(revision)
}
