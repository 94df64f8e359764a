import type { AdapterMode, PlanGuard } from '@plan/core'

/**
 * How the AI SDK adapter checks calls (`@plan/core`'s `AdapterMode`): `'plan'` — against an
 * approved plan given up front; `'turn'` — each model response's batch of tool calls is
 * compiled as a plan of its own.
 */
export type PlanMode = Exclude<AdapterMode, 'call'>

/** The mode of a guard: `'plan'` when it holds a plan, else `'turn'`. */
export function modeOf(guard: PlanGuard, mode: PlanMode | undefined): PlanMode {
  return mode ?? (guard.plan === undefined ? 'turn' : 'plan')
}
