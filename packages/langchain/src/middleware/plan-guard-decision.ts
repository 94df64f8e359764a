import type { DecisionEvent } from '@plan/core'

/**
 * One decision of the guard, reported to `onDecision`: `@plan/core`'s `DecisionEvent`, the
 * same in every adapter.
 *
 * @deprecated Use `DecisionEvent` from `@plan/core`.
 */
export type PlanGuardDecision = DecisionEvent
