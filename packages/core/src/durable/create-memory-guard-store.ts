import type { BudgetReservation, GuardStore, ReserveResult, SavedRunState } from './guard-store.js'
import { runTakenError, runWriteDecision } from './run-writer.js'

function budgetKey(reservation: BudgetReservation): string {
  return JSON.stringify([reservation.budget, reservation.key, reservation.windowStart])
}

/**
 * A {@link GuardStore} in this process's memory: shared budgets hold across the runs of one
 * process, and a run's state survives a new guard or middleware, but nothing survives the
 * process. For tests and single-process apps; use `@plan/postgres` for crashes and many
 * processes.
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
    async reserve(reservations): Promise<ReserveResult> {
      for (const reservation of reservations) {
        const count = used.get(budgetKey(reservation)) ?? 0
        if (count + 1 > reservation.maxCalls) return { reserved: false, reservation, used: count }
      }
      for (const reservation of reservations) {
        const key = budgetKey(reservation)
        used.set(key, (used.get(key) ?? 0) + 1)
      }
      return { reserved: true }
    },
  }
}
