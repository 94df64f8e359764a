import type { PlanIssue } from '../types/plan-issue.js'
import type { ExecutionStatus } from './execution-event.js'
import type { ExecutionStepResult } from './execution-result.js'

/** A step's result while the run goes on: no status yet while it is being authorized or run. */
export type StepRecord = { -readonly [K in keyof ExecutionStepResult]?: ExecutionStepResult[K] } & {
  attempts: number
}

/** Why a run did not complete. */
export type RunFailure = 'aborted' | 'denied' | 'failed'

/**
 * What a run has recorded so far: one record per step that was reached, the order in which
 * called steps ended, the first reason to stop, and the worst failure seen.
 */
export class RunRecord {
  readonly steps = new Map<string, StepRecord>()
  /** Ids of the steps whose tool was called, in the order they ended. */
  readonly order: string[] = []
  /** The first issue that stopped the run or one of its steps. */
  reason: PlanIssue | undefined
  #aborted = false
  #denied = false
  #failed = false

  /** Notes a failure; the first issue given becomes the run's reason. */
  note(failure: RunFailure, issue?: PlanIssue): void {
    if (failure === 'aborted') this.#aborted = true
    else if (failure === 'denied') this.#denied = true
    else this.#failed = true
    if (issue !== undefined) this.reason ??= issue
  }

  /** The run's status: aborted over denied over failed over completed. */
  status(): ExecutionStatus {
    if (this.#aborted) return 'aborted'
    if (this.#denied) return 'denied'
    return this.#failed ? 'failed' : 'completed'
  }

  /** Records a step that ended without running its tool (skipped, or finished earlier). */
  settle(stepId: string, result: StepRecord): void {
    this.steps.set(stepId, result)
  }

  /** Marks a step whose tool was called as ended. */
  ended(stepId: string, result: StepRecord, status: 'done' | 'failed' | 'aborted', at: number) {
    result.status = status
    result.endedAt = at
    this.order.push(stepId)
  }
}
