import type { PlanGuard } from '@plan/core'

const given = new WeakSet<PlanGuard>()

/** Records that the model got its last step after the guard stopped the run. */
export function markLastWord(guard: PlanGuard): void {
  given.add(guard)
}

/** True when the model already had its last step after the stop. */
export function hadLastWord(guard: PlanGuard): boolean {
  return given.has(guard)
}
