import { type GuardStore, PlanError, type SavedRunState } from '@plan/core'
import type { PlanGuardRunState } from './run-state.js'

/** The revision of a saved run state, or -1 when it has none. */
function revisionOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return -1
  const revision = (value as { revision?: unknown }).revision
  return typeof revision === 'number' ? revision : -1
}

/** The paused calls (`guard.paused`) of a saved run state, when it has any. */
function pausedOf(value: unknown): Readonly<Record<string, unknown>> | undefined {
  const guard = isRecord(value) ? value.guard : undefined
  const paused = isRecord(guard) ? guard.paused : undefined
  return isRecord(paused) ? paused : undefined
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * `state` with only the paused calls the store's state holds too: a resumed call takes no
 * shared budget again, so only the store, which counted it, can say that it paused.
 */
function vouchedByStore(state: unknown, stored: unknown): unknown {
  const paused = pausedOf(state)
  if (paused === undefined || !isRecord(state) || !isRecord(state.guard)) return state
  const known = pausedOf(stored)
  const kept = Object.entries(paused).filter(
    ([stepId, callId]) =>
      known !== undefined && Object.hasOwn(known, stepId) && known[stepId] === callId,
  )
  const guard = Object.fromEntries(Object.entries(state.guard).filter(([key]) => key !== 'paused'))
  if (kept.length > 0) guard.paused = Object.fromEntries(kept)
  return { ...state, guard }
}

/**
 * The freshest saved state of a run: the one in the agent state (the checkpoint) or the one in
 * the guard store, which is written before every tool call starts and so may be newer. Of
 * the agent state's paused calls, only those the store also holds are kept.
 * Throws `PlanError` (fail closed) when the store cannot be read (`store_failed`), or the
 * store's own `PlanError` when it refuses the state.
 */
export async function freshestRunState(
  store: GuardStore | undefined,
  runId: string,
  written: unknown,
): Promise<unknown> {
  if (store === undefined) return written
  let stored: SavedRunState | undefined
  try {
    stored = await store.load(runId)
  } catch (error) {
    // A store that refuses the state (a signed store: `signature_invalid`) says why itself.
    if (PlanError.isInstance(error)) throw error
    const message = `The guard store could not be read (${error instanceof Error ? error.message : String(error)}); no tool call can be authorized.`
    throw new PlanError(message, {
      issues: [{ code: 'store_failed', message, path: [] }],
      cause: error,
    })
  }
  if (stored === undefined) return vouchedByStore(written, undefined)
  return revisionOf(stored.state) > revisionOf(written)
    ? stored.state
    : vouchedByStore(written, stored.state)
}

/** A run state as the store keeps it. */
export function toSaved(state: PlanGuardRunState): SavedRunState {
  return { revision: state.revision, state }
}
