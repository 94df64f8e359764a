import type { ToolEffect } from './replay-tools.js'

/** What one scenario did in one adapter and mode. */
export interface RunOutcome {
  readonly scenario: string
  /** Benign: the task was done. Attack: always false. */
  readonly completed: boolean
  /** Attack: a call the attacker wanted reached a tool. */
  readonly harmful: boolean
  /** The guard refused at least one call (or a whole turn). */
  readonly refused: boolean
  /** The run threw instead of ending with an answer. */
  readonly crashed: string | undefined
  readonly effects: readonly ToolEffect[]
  /** Ask modes: questions put to the reviewer, and how many it approved. */
  readonly questions: number
  readonly approvals: number
}
