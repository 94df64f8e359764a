import type { PlanGuard, PlanIssue } from '@plan/core'
import { sessionOf } from './guard-session.js'

/** True when a human may overrule these issues: all of them are `tainted_run` refusals. */
export function humanMayOverrule(issues: readonly PlanIssue[]): boolean {
  return issues.length > 0 && issues.every((issue) => issue.code === 'tainted_run')
}

/** Records that a call was sent to a human (`user-approval`). */
export function markAsked(guard: PlanGuard, callId: string): void {
  const session = sessionOf(guard)
  session.asked ??= new Set()
  session.asked.add(callId)
}

/**
 * True, once, for a call that was sent to a human: the SDK runs such a call only after the
 * human approved it.
 */
export function takeAsked(guard: PlanGuard, callId: string | undefined): boolean {
  if (callId === undefined) return false
  return sessionOf(guard).asked?.delete(callId) ?? false
}
