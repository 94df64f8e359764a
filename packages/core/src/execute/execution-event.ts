import type { PlanIssue } from '@plan/shell/common'
import type { JsonObject } from '../types/json-value.js'

/** How one step of a run ended. */
export type ExecutionStepStatus = 'done' | 'failed' | 'denied' | 'skipped' | 'aborted'

/** How a whole run ended. */
export type ExecutionStatus = 'completed' | 'failed' | 'aborted' | 'denied'

/** The fields every event about one step's call carries. */
type StepCallEvent<Type extends string> = {
  readonly type: Type
  readonly at: number
  readonly stepId: string
  readonly tool: string
}

/** A progress event of `executePlan`; `at` is the executor's clock, in ms since the epoch. */
export type ExecutionEvent =
  | { readonly type: 'plan-start'; readonly at: number; readonly steps: number }
  /** A step was authorized and its tool is being called (`attempt` starts at 1). */
  | (StepCallEvent<'step-start'> & { readonly attempt: number; readonly args: JsonObject })
  /** An attempt failed and the step will be tried again. */
  | (StepCallEvent<'step-retry'> & { readonly attempt: number; readonly error: unknown })
  /** A step finished: `done`, `failed` (after its last attempt) or `aborted`. */
  | (StepCallEvent<'step-end'> & {
      readonly status: 'done' | 'failed' | 'aborted'
      readonly attempts: number
      readonly durationMs: number
      readonly error?: unknown
    })
  /** The guard refused a step's call; the tool was not called. */
  | (StepCallEvent<'denied'> & { readonly issues: readonly PlanIssue[] })
  /** A step will not run (a dependency failed, or the run stopped early). */
  | {
      readonly type: 'skipped'
      readonly at: number
      readonly stepId: string
      readonly issue: PlanIssue
    }
  | {
      readonly type: 'plan-end'
      readonly at: number
      readonly status: ExecutionStatus
      readonly durationMs: number
    }
