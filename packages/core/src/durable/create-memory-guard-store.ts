import { isRecord } from '@plan/shell/common'
import type { BudgetReservation, GuardStore, ReserveResult, SavedRunState } from './guard-store.js'
import { runTakenError, runWriteDecision } from './run-writer.js'
import { applySavedStateChanges } from './saved-state-changes.js'

function budgetKey(reservation: BudgetReservation): string {
  return JSON.stringify([reservation.budget, reservation.key, reservation.windowStart])
}

/** Deletes the counts of `reservation`'s budget and key in windows that ended a window ago. */
function forgetOldWindows(used: Map<string, number>, reservation: BudgetReservation): void {
  const length = reservation.windowSeconds
  if (length === undefined) return
  for (const key of used.keys()) {
    const [budget, runKey, windowStart] = JSON.parse(key) as [string, string, number]
    const old = windowStart < reservation.windowStart - length
    if (old && budget === reservation.budget && runKey === reservation.key) used.delete(key)
  }
}

/**
 * A {@link GuardStore} in this process's memory: shared budgets hold across the runs of one
 * process, and a run's state survives a new guard or middleware, but not the process. For tests and
 * single-process apps; use `@plan/postgres` for crashes and many processes.
 *
 * @example
 * ```ts
 * const store = createMemoryGuardStore()
 * const tools = guardTools(myTools, guard, { store, runId: 'run-1' })
 * ```
 */
export function createMemoryGuardStore(): GuardStore {
  const states = new Map<string, SavedRunState>()
  const used = new Map<string, number>()
  return {
    async load(runId) {
      const saved = states.get(runId)
      return saved === undefined
        ? undefined
        : { revision: saved.revision, state: structuredClone(saved.state) }
    },
    async save(runId, saved) {
      const current = states.get(runId)
      const head =
        current === undefined
          ? undefined
          : { revision: current.revision, writerId: current.writer?.id }
      const decision = runWriteDecision(head, saved)
      if (decision === 'conflict') throw runTakenError(runId)
      if (decision === 'write') states.set(runId, structuredClone(saved))
    },
    async saveChanges(runId, saved) {
      const current = states.get(runId)
      if (current === undefined) return false
      const head = { revision: current.revision, writerId: current.writer?.id }
      const decision = runWriteDecision(head, { ...saved, state: undefined })
      if (decision === 'conflict') throw runTakenError(runId)
      if (decision === 'ignore') return true
      const state = current.state
      if (saved.changes.since > current.revision || !isRecord(state)) return false
      applySavedStateChanges(state, structuredClone(saved.changes))
      const writer = saved.writer === undefined ? {} : { writer: structuredClone(saved.writer) }
      states.set(runId, { revision: saved.revision, state, ...writer })
      return true
    },
    async reserve(reservations): Promise<ReserveResult> {
      for (const reservation of reservations) {
        const count = used.get(budgetKey(reservation)) ?? 0
        if (count + 1 > reservation.maxCalls) return { reserved: false, reservation, used: count }
      }
      for (const reservation of reservations) {
        const key = budgetKey(reservation)
        const count = (used.get(key) ?? 0) + 1
        used.set(key, count)
        if (count === 1) forgetOldWindows(used, reservation)
      }
      return { reserved: true }
    },
    async release(reservations) {
      for (const reservation of reservations) {
        const key = budgetKey(reservation)
        const count = used.get(key) ?? 0
        if (count > 0) used.set(key, count - 1)
      }
    },
  }
}
