import type { DecisionEvent } from '@plan/core'
import { traceCallDecision } from '@plan/core/adapter'

/**
 * Reports one decision: a call's `execute_tool` span (the same names and attributes as core and
 * every adapter; nothing without a tracer provider), then the app's `onDecision`. A turn's plan
 * is traced by the guard itself, as `validate_plan`.
 */
export function reportDecision<Event extends DecisionEvent>(
  event: Event,
  onDecision: ((event: Event) => void) | undefined,
): void {
  if (event.kind === 'call') traceCallDecision(event, 'ai-sdk')
  onDecision?.(event)
}
