/**
 * Every counter a guarded run keeps, by kind: `count` (a number), `count?` (a number that older
 * saved states may lack) or `counts` (a number per key, e.g. per tool). This table is the one
 * place a counter is declared: its type, its snapshot, its restore and its schema derive from it.
 */
export const BUDGET_COUNTERS = {
  /** Tool calls started in the run. */
  calls: 'count',
  /** Re-plans submitted after the first plan. */
  replans: 'count',
  /** Denied calls and rejected turns. */
  denials: 'count?',
  /** Tool calls started, per tool. */
  callsPerTool: 'counts',
  /** The last call's key and how often it came in a row. */
  identicalCalls: 'counts',
  /** Per-turn mode: the last turn's signature and how often it came in a row. */
  turns: 'counts',
  /** How often each distinct denied call or rejected turn came back. */
  deniedRepeats: 'counts',
} as const

/** The kind of one counter. */
export type CounterKind = (typeof BUDGET_COUNTERS)[keyof typeof BUDGET_COUNTERS]

type CounterName = keyof typeof BUDGET_COUNTERS

/** The counters of a run, in memory. */
export type BudgetCounters = {
  -readonly [Name in CounterName]: (typeof BUDGET_COUNTERS)[Name] extends 'counts'
    ? Map<string, number>
    : number
}

/** The counters of a run, as saved (a state from an older version may lack the optional ones). */
export type SavedBudgetCounters = {
  readonly [Name in CounterName as (typeof BUDGET_COUNTERS)[Name] extends 'count'
    ? Name
    : never]: number
} & {
  readonly [Name in CounterName as (typeof BUDGET_COUNTERS)[Name] extends 'count'
    ? never
    : Name]?: (typeof BUDGET_COUNTERS)[Name] extends 'counts'
    ? Readonly<Record<string, number>>
    : number
}

const NAMES = Object.keys(BUDGET_COUNTERS) as CounterName[]

/** Counters of a run that has made no call yet. */
export function emptyCounters(): BudgetCounters {
  return countersFromSaved({})
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
