import type { DiffCategory } from './policy-probes.js'

/** Whether a change lets more through (`looser`) or less (`tighter`). */
export type DiffDirection = 'looser' | 'tighter'

/** One probe that the two policies decide differently. */
export interface FlippedProbe {
  readonly probe: string
  /** The issue code of the policy that refuses it. */
  readonly code: string
}

/** One difference between two policies, in one category, about one subject. */
export interface PolicyChange {
  readonly category: DiffCategory
  /** What changed: a tool, a program, a path scope entry, a URL argument, a budget. */
  readonly subject: string
  readonly direction: DiffDirection
  /** One line saying what changed. */
  readonly detail: string
  /** The probes that NEW decides otherwise than OLD; empty for changes read from the data. */
  readonly probes: readonly FlippedProbe[]
}
