import { type GuardStore, PlanError, type SavedRunState, type SavedStateChanges } from '@plan/core'
import { errorMessage, loadSavedState } from '@plan/core/adapter'
import { type RunContext, runBookkeeping, savedRunState } from './run-context.js'
import type { PlanGuardRunState } from './run-state.js'

/** The revision of a saved run state, or -1 when it has none. */
function revisionOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return -1
  const revision = (value as { revision?: unknown }).revision
  return typeof revision === 'number' ? revision : -1
}

/** A checkpoint copy that the store does not vouch for: `state_corrupt`, never resumed. */
function unvouched(runId: string, why: string): PlanError {
  const message = `The agent state holds a @plan guard state for the run ${JSON.stringify(runId)} that ${why}; it was not written by this middleware, and no tool call can be authorized.`
  return new PlanError(message, {
    issues: [
      {
        code: 'state_corrupt',
        message,
        path: ['_planGuardState'],
        hint: 'With a guard store, the store holds every state the middleware writes: resume the run only from a checkpoint it wrote, or start a new run.',
      },
    ],
  })
}

/**
 * The state a run resumes from. Without a store, the one in the agent state (the checkpoint).
 * With a store, the store's: every state the middleware writes into the agent state is saved
 * there first, so the checkpoint can never legitimately be ahead of it. Throws `PlanError`
 * (fail closed) when the store cannot be read (`store_failed`), with the store's own
 * `PlanError` when it refuses its state (a signed store: `signature_invalid`), and with
 * `state_corrupt` when the store has no state for the run or an older one than the agent state.
 */
export async function freshestRunState(
  store: GuardStore | undefined,
  runId: string,
  written: unknown,
): Promise<unknown> {
  if (store === undefined) return written
  const stored = await loadSavedState(store, runId, '; no tool call can be authorized')
  if (stored === undefined) throw unvouched(runId, 'the guard store has never saved')
  if (revisionOf(written) > revisionOf(stored.state)) {
    throw unvouched(runId, 'is newer than the one the guard store saved')
  }
  return stored.state
}

type Path = readonly string[]

/** The guard's changes as changes of the run's state, which keeps the guard's under `guard`. */
function runChanges(run: RunContext, changes: SavedStateChanges): SavedStateChanges {
  const inGuard = (path: Path): Path => ['guard', ...path]
  const set: [Path, unknown][] = changes.set.map(([path, value]) => [inGuard(path), value])
  for (const [key, value] of Object.entries(runBookkeeping(run))) set.push([[key], value])
  const append = changes.append?.map(
    ([path, items, at]): readonly [Path, readonly unknown[], number] => [inGuard(path), items, at],
  )
  return {
    since: changes.since,
    set,
    delete: changes.delete.map(inGuard),
    ...(append === undefined ? {} : { append }),
  }
}

/**
 * Saves the run's state for a tool call (before it starts, after it ends): what the call
 * changed, where the store takes changes and holds a revision they apply to; else the whole
 * state. Rejects as the store does.
 */
export async function saveCallState(store: GuardStore | undefined, run: RunContext): Promise<void> {
  if (store === undefined) return
  if (store.saveChanges !== undefined) {
    const revision = run.revision + 1
    const changes = run.guard.changesSince(revision)
    if (changes !== undefined) {
      run.revision = revision
      const saved = { revision, writer: run.writer, changes: runChanges(run, changes) }
      if (await store.saveChanges(run.id, saved)) {
        run.guard.savedAs(revision)
        return
      }
    }
  }
  await store.save(run.id, toSaved(run, savedRunState(run)))
}

/** A run state as the store keeps it, saved by the run's writer. */
export function toSaved(run: RunContext, state: PlanGuardRunState): SavedRunState {
  return { revision: state.revision, state, writer: run.writer }
}

/**
 * The run's state under its next revision, saved to the store (when there is one) before it
 * is written into the agent state. Throws `PlanError` with `store_failed` (fail closed) when
 * the store cannot save it.
 */
export async function storedRunState(
  store: GuardStore | undefined,
  run: RunContext,
): Promise<PlanGuardRunState> {
  const state = savedRunState(run)
  if (store === undefined) return state
  try {
    await store.save(run.id, toSaved(run, state))
  } catch (error) {
    if (PlanError.isInstance(error)) throw error
    const message = `The guard store could not save the run's state (${errorMessage(error)}); the run cannot go on.`
    throw new PlanError(message, {
      issues: [
        {
          code: 'store_failed',
          message,
          path: [],
          hint: 'Check that the guard store is reachable.',
        },
      ],
      cause: error,
    })
  }
  return state
}

/**
 * The run's state after a call ended, saved to the store first; undefined when the store
 * could not save it. The agent state then keeps its older state and the store the one written
 * before the call started, so a resume treats the call as interrupted (never as not run).
 */
export async function finishedRunState(
  store: GuardStore | undefined,
  run: RunContext,
): Promise<PlanGuardRunState | undefined> {
  try {
    return await storedRunState(store, run)
  } catch (error) {
    if (store === undefined) throw error
    return undefined
  }
}
