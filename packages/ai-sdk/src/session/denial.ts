import { formatIssues, PlanError, type PlanIssue } from '@plan/core'
import type { TurnState } from './guard-session.js'

/** Why a call was denied, as the adapter reports it. */
export interface Denial {
  readonly issues: readonly PlanIssue[]
  /** True when the call's whole turn was rejected as a plan (per-turn mode). */
  readonly turnRejected: boolean
}

/** The text a model reads when a call is denied: what was wrong, where, and what to do. */
export function denialReason(tool: string, denial: Denial): string {
  const turn = denial.turnRejected
    ? " This turn's tool calls were compiled as one plan and the plan was rejected, so none of them ran."
    : ''
  return `@plan denied the call to "${tool}"; it did not run.${turn}\n${formatIssues(denial.issues)}`
}

/** The typed error a wrapped tool throws for a denied call; the SDK reports it to the model. */
export function denialError(tool: string, denial: Denial): PlanError {
  return new PlanError(denialReason(tool, denial), { issues: denial.issues })
}

/** The issues of a rejected turn that concern one call, or all of them when none is specific. */
export function turnIssuesFor(turn: TurnState, callId: string | undefined): readonly PlanIssue[] {
  const stepId = callId === undefined ? undefined : turn.stepIds.get(callId)
  const own = turn.issues.filter((issue) => issue.stepId === undefined || issue.stepId === stepId)
  return own.length > 0 ? own : turn.issues
}
