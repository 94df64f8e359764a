import { matchJsonSchema } from '@plan/json'
import { createIssue, PlanError } from '@plan/shell/common'
import { readUntrustedFlowState } from '../flow/read-untrusted-flow-state.js'
import { unreadableIssue } from '../issues/unreadable-issue.js'
import type { JsonValue } from '../types/json-value.js'
import type { PlanGuardState } from '../types/plan-guard.js'
import { copyJson } from '../util/json-copy.js'
import GUARD_STATE_JSON_SCHEMA from './guard-state-schema.generated.json' with { type: 'json' }

function invalid(path: readonly (string | number)[], reason: string): never {
  const field = path.length === 0 ? 'state' : path.join('.')
  const message = `The guard state has an invalid ${field} (${reason}).`
  throw new PlanError(`Invalid guard state: ${field}.`, {
    issues: [createIssue('state_corrupt', message, [...path])],
  })
}

/** A state checked against the guard state schema, its outputs copied as JSON. */
export interface CheckedGuardState extends PlanGuardState {
  readonly outputs: Readonly<Record<string, JsonValue>>
}

function readUnsafely(state: unknown): CheckedGuardState {
  const match = matchJsonSchema(GUARD_STATE_JSON_SCHEMA, state)
  if (!match.success) invalid(match.mismatch.path, match.mismatch.message)
  const checked = match.value as PlanGuardState
  const outputs: Record<string, JsonValue> = {}
  for (const [stepId, output] of Object.entries(checked.outputs)) {
    const copied = copyJson(output)
    if (!copied.ok) invalid(['outputs', stepId], copied.reason)
    Object.defineProperty(outputs, stepId, { value: copied.value, enumerable: true })
  }
  const flow = checked.flow === undefined ? undefined : readUntrustedFlowState(checked.flow)
  return { ...checked, outputs, flow }
}

/**
 * Checks a state from `snapshot()` (possibly after a trip through JSON) against the guard state
 * schema (`guardStateSchema` of `@plan/core/schemas`, as JSON Schema) and answers a copy; the plan
 * is only shape-checked (the guard compiles it again). Else throws `PlanError` (`state_corrupt`).
 */
export function readGuardState(state: unknown): CheckedGuardState {
  try {
    return readUnsafely(state)
  } catch (error) {
    if (PlanError.isInstance(error)) throw error
    throw new PlanError('Invalid guard state: it cannot be read.', {
      issues: [unreadableIssue('state_corrupt', 'guard state', error)],
      cause: error,
    })
  }
}
