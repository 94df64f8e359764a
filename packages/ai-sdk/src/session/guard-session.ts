import type {
  AllowedTextSource,
  AuthorizeResult,
  PlanGuard,
  PlanIssue,
  RetryInterrupted,
} from '@plan/core'

/** An `authorize` answer that allowed a call. */
export type AllowedResult = Extract<AuthorizeResult, { allowed: true }>

/** A step reserved by the approval function, waiting for the wrapper to run it. */
export interface Reservation {
  readonly tool: string
  readonly argsKey: string
  readonly result: AllowedResult
}

/** The last batch of tool calls submitted as a plan in per-turn mode. */
export interface TurnState {
  readonly accepted: boolean
  readonly issues: readonly PlanIssue[]
  /** Step id of each tool call id in the batch. */
  readonly stepIds: ReadonlyMap<string, string>
}

/**
 * Adapter state shared by everything built on one guard (tool wrappers, approval, turn
 * middleware, prepareStep). Keyed by the guard so the public functions keep one argument.
 */
export interface GuardSession {
  /** Reservations made by the approval function, by tool call id. */
  readonly reservations: Map<string, Reservation>
  /** Set once a turn middleware has submitted a batch (per-turn mode). */
  turn: TurnState | undefined
  /** Asked before a call that a crash interrupted runs again (`guardTools`' option). */
  retryInterrupted: RetryInterrupted | undefined
  /** The revision of the last state written to the guard store; read from it at first use. */
  revision: number | undefined
  /** What a refusal lists as allowed instead; none when unknown (see `setRefusalContext`). */
  allowed: AllowedTextSource | undefined
}

const sessions = new WeakMap<PlanGuard, GuardSession>()

/** The adapter state of a guard, created on first use. */
export function sessionOf(guard: PlanGuard): GuardSession {
  let session = sessions.get(guard)
  if (session === undefined) {
    session = {
      reservations: new Map(),
      turn: undefined,
      retryInterrupted: undefined,
      revision: undefined,
      allowed: undefined,
    }
    sessions.set(guard, session)
  }
  return session
}
