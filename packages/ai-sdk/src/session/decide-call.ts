import { type AuthorizeResult, PlanError, type PlanGuard, type ToolCall } from '@plan/core'
import { canonicalJson } from './canonical-json.js'
import type { Denial } from './denial.js'
import { turnIssuesFor } from './denial.js'
import { type AllowedResult, type GuardSession, sessionOf } from './guard-session.js'

/** A guard that may offer a dry run: `check` answers like `authorize` without reserving. */
type GuardWithCheck = PlanGuard & {
  readonly check?: (call: ToolCall) => AuthorizeResult | Promise<AuthorizeResult>
}

/** The adapter's answer for one call. */
export type CallDecision =
  | { readonly allowed: true; readonly result: AllowedResult }
  | ({ readonly allowed: false } & Denial)

function fromResult(result: AuthorizeResult): CallDecision {
  return result.allowed
    ? { allowed: true, result }
    : { allowed: false, issues: result.issues.length > 0 ? result.issues : [result.issue], turnRejected: false }
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

async function authorize(guard: PlanGuard, call: ToolCall): Promise<CallDecision> {
  try {
    return fromResult(await guard.authorize(call))
  } catch (error) {
    // authorize never throws by contract; if it does, deny (fail closed).
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
}

/**
 * Decision for the approval function. Uses the guard's dry run when it has one; otherwise
 * authorizes now and keeps the reservation for the wrapper, so a step is reserved once.
 */
export async function decideForApproval(guard: PlanGuard, call: ToolCall): Promise<CallDecision> {
  const session = sessionOf(guard)
  const rejected = rejectedTurn(session, call)
  if (rejected !== undefined) return rejected
  const check = (guard as GuardWithCheck).check
  if (typeof check === 'function') {
    try {
      return fromResult(await check.call(guard, call))
    } catch {
      return authorize(guard, call)
    }
  }
  const callId = call.callId
  const argsKey = canonicalJson(call.args)
  if (callId !== undefined) {
    const existing = session.reservations.get(callId)
    if (existing !== undefined) {
      // the SDK re-evaluates approvals of replayed calls: answer the same, reserve nothing new
      if (existing.tool === call.tool && argsKey !== undefined && existing.argsKey === argsKey) {
        return { allowed: true, result: existing.result }
      }
      return changedArguments(call.tool)
    }
  }
  const decision = await authorize(guard, call)
  if (decision.allowed && callId !== undefined && argsKey !== undefined) {
    session.reservations.set(callId, { tool: call.tool, argsKey, result: decision.result })
  }
  return decision
}

/**
 * Decision for the tool wrapper, the authoritative check: takes over the approval's
 * reservation for this call when there is one and it matches, else authorizes the call.
 */
export async function decideForExecution(guard: PlanGuard, call: ToolCall): Promise<CallDecision> {
  const session = sessionOf(guard)
  const rejected = rejectedTurn(session, call)
  if (rejected !== undefined) return rejected
  const reservation = call.callId === undefined ? undefined : session.reservations.get(call.callId)
  if (reservation !== undefined && call.callId !== undefined) {
    session.reservations.delete(call.callId)
    const argsKey = canonicalJson(call.args)
    if (reservation.tool === call.tool && argsKey !== undefined && argsKey === reservation.argsKey) {
      return { allowed: true, result: reservation.result }
    }
    const decision = changedArguments(call.tool)
    guard.fail(reservation.result.stepId, new PlanError('The call changed after approval.', { issues: decision.allowed ? [] : decision.issues }))
    return decision
  }
  return authorize(guard, call)
}

/**
 * Releases reservations that the approval made but no tool ran (the SDK skipped the call):
 * their steps are marked failed, so none stays "running" forever. Called between steps.
 */
export function releaseStaleReservations(guard: PlanGuard): void {
  const session = sessionOf(guard)
  for (const [callId, reservation] of session.reservations) {
    session.reservations.delete(callId)
    guard.fail(
      reservation.result.stepId,
      new PlanError(`The approved "${reservation.tool}" call ${callId} never ran.`),
    )
  }
}
