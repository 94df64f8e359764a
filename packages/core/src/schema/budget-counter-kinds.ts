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
  /** Denied calls and rejected turns (in the current window, with `denialWindowSeconds`). */
  denials: 'count?',
  /** With `budgets.denialWindowSeconds`: when the window denials are counted in began, in ms. */
  denialWindowStart: 'count?',
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
