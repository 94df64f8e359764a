import type { SavedStateChanges } from '../types/saved-state-changes.js'

/**
 * One writer of a run: a process (or a handler) that loaded the run and now saves it. A run has one
 * writer at a time; a second that resumed it loses the race (see {@link GuardStore.save}).
 */
export interface RunWriter {
  /** Unique to this writer, e.g. `crypto.randomUUID()`. */
  readonly id: string
  /** The revision of the state the writer resumed from; 0 when the run had none. */
  readonly loadedRevision: number
}

/** A run's state as a store keeps it: the adapter's state as JSON, under a growing revision. */
export interface SavedRunState {
  /** Grows with every write of the run; a store never replaces a state by an older one. */
  readonly revision: number
  /** What the adapter saves (the guard's `snapshot()` and its own bookkeeping), as JSON. */
  readonly state: unknown
  /** Who saves it; with it, a save is compare-and-set (see {@link GuardStore.save}). */
  readonly writer?: RunWriter
}

/** A revision of a run's state saved as what changed (see {@link GuardStore.saveChanges}). */
export interface SavedRunChanges extends Omit<SavedRunState, 'state'> {
  /** What changed since the revision `changes.since` (the guard's `changesSince`). */
  readonly changes: SavedStateChanges
}

/** One call counted against one shared budget (see the policy's `budgets.shared`). */
export interface BudgetReservation {
  /** The budget's name in the policy. */
  readonly budget: string
  /** The run key's value the budget is separated by (the tenant, the user). */
  readonly key: string
  /** Start of the window, in seconds since the Unix epoch; 0 for a budget without a window. */
  readonly windowStart: number
  /** Length of the window, in seconds; absent for a budget without a window. */
  readonly windowSeconds?: number
  /** Most calls in the window. */
  readonly maxCalls: number
}

/** What `reserve` answers. */
export type ReserveResult =
  | { readonly reserved: true }
  | {
      readonly reserved: false
      /** The reservation that did not fit; none of the others was kept. */
      readonly reservation: BudgetReservation
      /** Calls already counted against it in its window. */
      readonly used: number
    }

/**
 * Where a guarded run keeps what must survive a crash: the run's state, written before every
 * tool call starts (write-ahead) and after it ends, and the counts of shared budgets.
 * `@plan/postgres` implements it on PostgreSQL; `createMemoryGuardStore` in one process.
 */
export interface GuardStore {
  /** The freshest state saved for a run, or undefined when none was. */
  load(runId: string): Promise<SavedRunState | undefined>
  /**
   * Saves a run's state; resolves once it is durable. With `saved.writer` it is compare-and-set
   * (`runWriteDecision`): written if the stored state is the same writer's (its own older revision
   * is ignored: a late write) or still the revision the writer loaded (taking the run over); else
   * another writer has the run: it rejects with a `store_failed` `PlanError`. Without a writer, a
   * lower revision than stored is ignored. Rejects if it cannot save (the caller fails closed).
   */
  save(runId: string, saved: SavedRunState): Promise<void>
  /**
   * Saves a revision as what changed since `changes.since`, so a save costs what changed, not the
   * whole state. Resolves true once written (or ignored, as `save` ignores a late write), false
   * when the store cannot apply them (it lacks `changes.since` or a later revision, or wants the
   * whole state again): the caller then uses `save`. Compare-and-set and rejects as `save`.
   * Optional: without it, every save is a whole state.
   */
  saveChanges?(runId: string, saved: SavedRunChanges): Promise<boolean>
  /**
   * Counts one call against every reservation, atomically: all fit under `maxCalls` and are
   * counted, or none; concurrent callers (in any process) never together exceed a budget. A store
   * may drop counts of windows ended over a window ago (no clock off by less reaches them).
   */
  reserve(reservations: readonly BudgetReservation[]): Promise<ReserveResult>
  /**
   * Gives back reservations `reserve` counted, for a call that provably never started (its write
   * failed in this process, so the tool was never called); never for one that may have (a crash, a
   * timeout after the tool call). Optional: without it such counts stay (the safe side).
   */
  release?(reservations: readonly BudgetReservation[]): Promise<void>
}
