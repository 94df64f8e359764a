import { BUDGET_COUNTERS } from '../schema/budget-counter-kinds.js'
import type { PlanGuardState } from '../types/plan-guard.js'

type CounterName = keyof typeof BUDGET_COUNTERS

/** The counters of a run, in memory. */
export type BudgetCounters = {
  -readonly [Name in CounterName]: (typeof BUDGET_COUNTERS)[Name] extends 'counts'
    ? Map<string, number>
    : number
}

/** The counters of a run, as saved (a state from an older version may lack the optional ones). */
export type SavedBudgetCounters = Pick<PlanGuardState, CounterName>

const NAMES = Object.keys(BUDGET_COUNTERS) as CounterName[]

/** Counters of a run that has made no call yet (a literal: a guard per run makes one each). */
export function emptyCounters(): BudgetCounters {
  return {
    calls: 0,
    replans: 0,
    denials: 0,
    denialWindowStart: 0,
    callsPerTool: new Map(),
    identicalCalls: new Map(),
    turns: new Map(),
    deniedRepeats: new Map(),
  } satisfies BudgetCounters
}

/** The counters as JSON. */
export function savedCounters(counters: BudgetCounters): SavedBudgetCounters {
  const saved: Record<string, unknown> = {}
  for (const name of NAMES) {
    const value = counters[name]
    saved[name] = typeof value === 'number' ? value : Object.fromEntries(value)
  }
  return saved as SavedBudgetCounters
}

/** Counters from a checked saved state; a missing optional counter starts empty. */
export function countersFromSaved(saved: Partial<SavedBudgetCounters>): BudgetCounters {
  const counters: Record<string, unknown> = {}
  for (const name of NAMES) {
    const value = saved[name]
    counters[name] =
      BUDGET_COUNTERS[name] === 'counts'
        ? new Map(Object.entries((value as Record<string, number> | undefined) ?? {}))
        : ((value as number | undefined) ?? 0)
  }
  return counters as BudgetCounters
}
