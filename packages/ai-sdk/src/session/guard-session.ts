import type { AuthorizeResult, PlanGuard, PlanIssue, RetryInterrupted, RunWriter } from '@plan/core'
import type { AllowedTextSource } from '@plan/core/adapter'

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
 * middleware, prepareStep). Kept with the guard so the public functions keep one argument.
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
  /** This process as the run's writer in the guard store; made with `revision`. */
  writer: RunWriter | undefined
  /** What a refusal lists as allowed instead; none when unknown (see `setRefusalContext`). */
  allowed: AllowedTextSource | undefined
  /** Tool call ids sent to a human (`user-approval`), not run yet; made at the first one. */
  asked: Set<string> | undefined
  /** True once the model had its last step after the guard stopped the run. */
  lastWord: boolean
}

const sessionKey = Symbol('@plan/ai-sdk.session')

/** Only for a guard that cannot take a property (frozen or sealed). */
const frozenGuardSessions = new WeakMap<PlanGuard, GuardSession>()

function newSession(): GuardSession {
  return {
    reservations: new Map(),
    turn: undefined,
    retryInterrupted: undefined,
    revision: undefined,
    writer: undefined,
    allowed: undefined,
    asked: undefined,
    lastWord: false,
  }
}

/**
 * The adapter state of a guard, created on first use. It is a hidden property of the guard, not
 * a WeakMap entry: a guard per run would leave a WeakMap entry per run for the garbage
 * collector to clear, which cost more than the whole adapter (see bench `frameworks`).
 */
export function sessionOf(guard: PlanGuard): GuardSession {
  const own = (guard as unknown as { readonly [sessionKey]?: GuardSession })[sessionKey]
  if (own !== undefined) return own
  if (!Object.isExtensible(guard)) {
    let session = frozenGuardSessions.get(guard)
    if (session === undefined) {
      session = newSession()
      frozenGuardSessions.set(guard, session)
    }
    return session
  }
  const session = newSession()
  Object.defineProperty(guard, sessionKey, { value: session })
  return session
}
