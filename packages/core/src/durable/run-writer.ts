import { createIssue, PlanError } from '@plan/shell/common'
import type { RunWriter, SavedRunState } from './guard-store.js'

/** What a store does with a save: write it, ignore it (a late write), or refuse it. */
export type RunWriteDecision = 'write' | 'ignore' | 'conflict'

/** What a store holds of a run to decide on a save: its revision and the writer of it. */
export interface StoredRunHead {
  readonly revision: number
  readonly writerId: string | undefined
}

/**
 * The compare-and-set rule of `GuardStore.save`, for stores that can run code where the
 * state is kept (`@plan/postgres` has the same rule in SQL).
 *
 * - nothing stored: write;
 * - no writer given: write unless the stored revision is higher;
 * - the stored state is this writer's: write a higher revision, ignore another (a late write);
 * - it is another writer's (or an unnamed one's): write only when it is still the revision this
 *   writer loaded, else conflict: the run was written since, by another writer.
 */
export function runWriteDecision(
  stored: StoredRunHead | undefined,
  saved: SavedRunState,
): RunWriteDecision {
  if (stored === undefined) return 'write'
  const writer = saved.writer
  if (writer === undefined) return stored.revision > saved.revision ? 'ignore' : 'write'
  if (stored.writerId === writer.id) return saved.revision > stored.revision ? 'write' : 'ignore'
  return stored.revision === writer.loadedRevision ? 'write' : 'conflict'
}

/** A new writer of a run that resumes from `loaded` (undefined: a new run). */
export function createRunWriter(loaded: SavedRunState | undefined): RunWriter {
  return { id: globalThis.crypto.randomUUID(), loadedRevision: loaded?.revision ?? 0 }
}

/** The `store_failed` error of a writer that lost its run to another writer. */
export function runTakenError(runId: string): PlanError {
  const message = `Another writer has saved the run ${JSON.stringify(runId)} since this one loaded it (a duplicated worker); this one may not run its tools.`
  const hint = 'Let the other worker finish the run; resume it only from its latest state.'
  return new PlanError(message, { issues: [createIssue('store_failed', message, [], hint)] })
}
