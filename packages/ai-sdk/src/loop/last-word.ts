import type { PlanGuard } from '@plan/core'
import { sessionOf } from '../session/guard-session.js'

/** Records that the model got its last step after the guard stopped the run. */
export function markLastWord(guard: PlanGuard): void {
  sessionOf(guard).lastWord = true
}

/** True when the model already had its last step after the stop. */
export function hadLastWord(guard: PlanGuard): boolean {
  return sessionOf(guard).lastWord
}
