import { PlanError, type PlanGuard, type PlanIssue } from '@plan/core'
import { type AllowedTextSource, allowedText, refusalText } from '@plan/core/adapter'
import type { TurnState } from './guard-session.js'
import { sessionOf } from './guard-session.js'

/** Why a call was denied, as the adapter reports it. */
export interface Denial {
  readonly issues: readonly PlanIssue[]
  /** True when the call's whole turn was rejected as a plan (per-turn mode). */
  readonly turnRejected: boolean
}

/**
 * What a refusal tells the model is allowed instead: the guard's ready steps (plan mode) or
 * the compiler's policy (per-turn mode). Set by `createPlanGuardedTools`, which knows both.
 */
export function setRefusalContext(guard: PlanGuard, source: AllowedTextSource): void {
  sessionOf(guard).allowed = source
}

/**
 * The text a model reads when a call is denied, the same in every adapter (core's
 * `refusalText`): what was wrong, where, what to do, and what is allowed instead.
 */
export function denialReason(guard: PlanGuard, tool: string, denial: Denial): string {
  const session = sessionOf(guard)
  // without createPlanGuardedTools: a guard holding a plan outside per-turn mode lists its steps
  const source =
    session.allowed ??
    (guard.plan !== undefined && session.turn === undefined ? { guard } : undefined)
  return refusalText({
    tool,
    issues: denial.issues,
    turnRejected: denial.turnRejected,
    allowed: source === undefined ? undefined : allowedText(source),
  })
}

/** The typed error a wrapped tool throws for a denied call; the SDK reports it to the model. */
export function denialError(guard: PlanGuard, tool: string, denial: Denial): PlanError {
  return new PlanError(denialReason(guard, tool, denial), { issues: denial.issues })
}

/** The issues of a rejected turn that concern one call, or all of them when none is specific. */
export function turnIssuesFor(turn: TurnState, callId: string | undefined): readonly PlanIssue[] {
  const stepId = callId === undefined ? undefined : turn.stepIds.get(callId)
  const own = turn.issues.filter((issue) => issue.stepId === undefined || issue.stepId === stepId)
  return own.length > 0 ? own : turn.issues
}
