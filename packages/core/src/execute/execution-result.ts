import type { PlanIssue } from '@plan/shell/common'
import type { JsonValue } from '../types/json-value.js'
import type { ExecutionStatus, ExecutionStepStatus } from './execution-event.js'

/** How one step of a run ended. */
export interface ExecutionStepResult {
  readonly status: ExecutionStepStatus
  /** The step's output as JSON (when `done`). */
  readonly output?: JsonValue
  /** What the tool threw, or the timeout / abort error (when `failed` or `aborted`). */
  readonly error?: unknown
  /** Why the step was denied, skipped, timed out or aborted. */
  readonly issues?: readonly PlanIssue[]
  /** Attempts made (tool calls); 0 when the tool was never called. */
  readonly attempts: number
  readonly startedAt?: number
  readonly endedAt?: number
}

/** The result of `executePlan`. */
export interface ExecutionResult {
  readonly status: ExecutionStatus
  /** One result per step of the plan (a null-prototype record keyed by step id). */
  readonly steps: Readonly<Record<string, ExecutionStepResult>>
  /** Ids of the steps whose tool was called, in the order they ended. */
  readonly order: readonly string[]
  /** Why the run stopped early (first denial, failure, abort or deadline), if it did. */
  readonly reason?: PlanIssue
  readonly startedAt: number
  readonly endedAt: number
}
