import { type AuthorizeResult, PlanError, type PlanGuard, type ToolCall } from '@plan/core'
import { authorizeInterrupted, canonicalJson } from '@plan/core/adapter'
import type { Denial } from './denial.js'
import { turnIssuesFor } from './denial.js'
import { type AllowedResult, type GuardSession, sessionOf } from './guard-session.js'

/** The adapter's answer for one call. */
export type CallDecision =
  | { readonly allowed: true; readonly result: AllowedResult }
  | ({ readonly allowed: false } & Denial)

/** Arguments as canonical JSON, or undefined when they are not JSON (equal to nothing). */
function argsKeyOf(args: unknown): string | undefined {
  try {
    return canonicalJson(args)
  } catch {
    return undefined
  }
}

function fromResult(result: AuthorizeResult): CallDecision {
  return result.allowed
    ? { allowed: true, result }
    : {
        allowed: false,
        issues: result.issues.length > 0 ? result.issues : [result.issue],
        turnRejected: false,
      }
}

function rejectedTurn(session: GuardSession, call: ToolCall): CallDecision | undefined {
  const turn = session.turn
  if (turn === undefined || turn.accepted) return undefined
  return { allowed: false, issues: turnIssuesFor(turn, call.callId), turnRejected: true }
}

function changedArguments(tool: string): CallDecision {
  return {
    allowed: false,
    turnRejected: false,
    issues: [
      {
        code: 'arguments_differ',
        message: `The arguments of this "${tool}" call changed after it was approved.`,
        path: ['args'],
        hint: 'Call the tool again with the arguments of an approved step.',
      },
    ],
  }
}

/** The guard never throws by contract; if it does, the call is denied (fail closed). */
function guardFailure(error: unknown): CallDecision {
  const issues = PlanError.isInstance(error) ? error.issues : []
  return {
    allowed: false,
    turnRejected: false,
    issues:
      issues.length > 0
        ? issues
        : [{ code: 'invalid_plan', message: `The guard failed: ${String(error)}`, path: [] }],
  }
}

/** The call with the step id its turn gave it (per-turn mode), so core matches that step. */
function withTurnStep(session: GuardSession, call: ToolCall): ToolCall {
  const stepId = call.callId === undefined ? undefined : session.turn?.stepIds.get(call.callId)
  return stepId === undefined || call.stepId !== undefined ? call : { ...call, stepId }
}

/** The guard's answer as a decision; an answer that cannot be read denies the call. */
function decisionOf(result: AuthorizeResult): CallDecision {
  try {
    return fromResult(result)
  } catch (error) {
    return guardFailure(error)
  }
}

/** The guard's decision, in one promise turn (not an async function awaiting another). */
function authorize(guard: PlanGuard, call: ToolCall): Promise<CallDecision> {
  try {
    const session = sessionOf(guard)
    const retry = session.retryInterrupted
    const turnCall = withTurnStep(session, call)
    return authorizeInterrupted(guard, turnCall, retry).then(decisionOf, guardFailure)
  } catch (error) {
    return Promise.resolve(guardFailure(error))
  }
}

/** Keeps an allowed call's reservation for the wrapper, under its call id and arguments. */
function reserveFor(
  session: GuardSession,
  call: ToolCall,
  callId: string,
  argsKey: string,
): (decision: CallDecision) => CallDecision {
  return (decision) => {
    if (decision.allowed)
      session.reservations.set(callId, { tool: call.tool, argsKey, result: decision.result })
    return decision
  }
}

/**
 * Decision for the approval function: authorizes now and keeps the reservation for the
 * wrapper, so a step is reserved once (core has no dry run). The guard's promise is returned
 * as it is, not awaited in an async function of its own: a call a step fewer to wait for.
 */
export function decideForApproval(guard: PlanGuard, call: ToolCall): Promise<CallDecision> {
  try {
    const session = sessionOf(guard)
    const rejected = rejectedTurn(session, call)
    if (rejected !== undefined) return Promise.resolve(rejected)
    const callId = call.callId
    const argsKey = argsKeyOf(call.args)
    if (callId !== undefined) {
      const existing = session.reservations.get(callId)
      if (existing !== undefined) {
        // the SDK re-evaluates approvals of replayed calls: answer the same, reserve nothing new
        if (existing.tool === call.tool && argsKey !== undefined && existing.argsKey === argsKey) {
          return Promise.resolve({ allowed: true, result: existing.result })
        }
        return Promise.resolve(changedArguments(call.tool))
      }
    }
    const decision = authorize(guard, call)
    if (callId === undefined || argsKey === undefined) return decision
    return decision.then(reserveFor(session, call, callId, argsKey))
  } catch (error) {
    return Promise.reject(error)
  }
}

/**
 * Decision for the tool wrapper, the authoritative check: takes over the approval's
 * reservation for this call when there is one and it matches, else authorizes the call.
 */
export function decideForExecution(guard: PlanGuard, call: ToolCall): Promise<CallDecision> {
  try {
    const session = sessionOf(guard)
    const rejected = rejectedTurn(session, call)
    if (rejected !== undefined) return Promise.resolve(rejected)
    const reservation =
      call.callId === undefined ? undefined : session.reservations.get(call.callId)
    if (reservation !== undefined && call.callId !== undefined) {
      session.reservations.delete(call.callId)
      const argsKey = argsKeyOf(call.args)
      if (
        reservation.tool === call.tool &&
        argsKey !== undefined &&
        argsKey === reservation.argsKey
      ) {
        return Promise.resolve({ allowed: true, result: reservation.result })
      }
      guard.release(reservation.result.stepId)
      return Promise.resolve(changedArguments(call.tool))
    }
    return authorize(guard, call)
  } catch (error) {
    return Promise.reject(error)
  }
}

/**
 * Returns to ready the steps that the approval reserved but no tool ran (the SDK skipped the
 * call), so none stays "running" forever. Called between steps and before a new turn.
 */
export function releaseStaleReservations(guard: PlanGuard): void {
  const session = sessionOf(guard)
  // called before every step and turn: most find nothing, and need no iterator to see it
  if (session.reservations.size === 0) return
  for (const [callId, reservation] of session.reservations) {
    session.reservations.delete(callId)
    guard.release(reservation.result.stepId)
  }
}
