import {
  type GuardStore,
  PlanError,
  type PlanGuard,
  type PlanIssue,
  type RunKeys,
  type SavedRunState,
} from '@plan/core'
import {
  createRunWriter,
  finishDurableCall,
  type GuardSaveTarget,
  runTakenError,
  saveGuardState,
  startDurableCall,
} from '@plan/core/adapter'
import { sessionOf } from '../session/guard-session.js'

/** Where a guarded tool set keeps its run durably (see `guardTools`' `store`). */
export interface DurableRun {
  readonly store: GuardStore | undefined
  /** The run's id in the store; resume with `createPlanGuard(plan, { state: (await store.load(runId))?.state })`. */
  readonly runId: string | undefined
  readonly keys: RunKeys | undefined
  /** False when a call has nothing to count or write: no store and no shared budget. */
  readonly durable: boolean
}

/** The durable part of a guarded tool set: `durable` is computed once, from the policy. */
export function durableRun(
  guard: PlanGuard,
  store: GuardStore | undefined,
  runId: string | undefined,
  keys: RunKeys | undefined,
): DurableRun {
  const shared = guard.policy.budgets.shared
  const durable = store !== undefined || (shared !== undefined && Object.keys(shared).length > 0)
  return { store, runId, keys, durable }
}

/** Makes the guard the writer of a run it resumed from `loaded` (undefined: a new run). */
export function resumeWriter(guard: PlanGuard, loaded: SavedRunState | undefined): void {
  sessionOf(guard).writer = createRunWriter(loaded)
}

/** Where the run is saved, its revision checked against the store before the first write. */
async function saveTarget(guard: PlanGuard, store: GuardStore, runId: string) {
  const session = sessionOf(guard)
  if (session.revision === undefined) {
    // Read again before the first write: the store checks the state (a signed store), and a
    // run written since it was resumed belongs to another writer.
    const stored = await store.load(runId)
    // A parallel first call may have checked and numbered its save while this one waited.
    if (session.revision === undefined) {
      const revision = stored?.revision ?? 0
      session.writer ??= createRunWriter(stored)
      if (revision !== session.writer.loadedRevision) throw runTakenError(runId)
      session.revision = revision
    }
  }
  const nextRevision = () => {
    session.revision = (session.revision ?? 0) + 1
    return session.revision
  }
  return {
    store,
    runId,
    nextRevision,
    ...(session.writer === undefined ? {} : { writer: session.writer }),
  }
}

/**
 * Between the guard's authorization and the tool's start: counts the shared budgets and
 * writes the guard's state to the store. Answers the issues (and releases the step) when the
 * call may not start, empty when it may.
 */
export async function beginDurableCall(
  guard: PlanGuard,
  run: DurableRun,
  tool: string,
  stepId: string,
): Promise<readonly PlanIssue[]> {
  if (!run.durable) return []
  let target: GuardSaveTarget | undefined
  if (run.store !== undefined && run.runId !== undefined) {
    try {
      target = await saveTarget(guard, run.store, run.runId)
    } catch (error) {
      // A store that refuses the saved state (a signed store: `signature_invalid`) says why itself.
      if (PlanError.isInstance(error)) {
        guard.release(stepId)
        return error.issues.map((issue) => ({ ...issue, stepId }))
      }
      target = undefined
    }
  }
  const issues = await startDurableCall({
    store: run.store,
    runId: run.runId ?? '',
    policy: guard.policy,
    tool,
    stepId,
    ...(run.keys === undefined ? {} : { keys: run.keys }),
    saved: {
      // What the call changed, not the whole state, where the store takes changes.
      save: () => {
        if (target === undefined) throw new Error('the revision of the run could not be read')
        return saveGuardState(guard, target)
      },
    },
  })
  if (issues.length > 0) guard.release(stepId)
  return issues
}

/** After the tool ended (done or failed): writes the guard's state to the store. */
export async function endDurableCall(guard: PlanGuard, run: DurableRun): Promise<void> {
  if (run.store === undefined || run.runId === undefined) return
  try {
    const target = await saveTarget(guard, run.store, run.runId)
    await finishDurableCall(run.store, run.runId, () => saveGuardState(guard, target))
  } catch {
    // As finishDurableCall: the state written before the call is the conservative one.
  }
}
