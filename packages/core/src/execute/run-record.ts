import { type PlanIssue, stringAt } from '@plan/shell/common'
import type { ExecutionStatus } from './execution-event.js'
import { type StepRecord, StepRecords } from './step-records.js'

/**
 * A new step record, with room in the object itself for the fields a run adds as the step goes
 * on (a constructor's objects get it, an object literal's do not): a plain object otherwise.
 */
export const newStepRecord: () => StepRecord = (() => {
  function OpenRecord(this: StepRecord) {
    this.attempts = 0
  }
  OpenRecord.prototype = Object.prototype
  return (): StepRecord => Reflect.construct(OpenRecord, [])
})()

/** Why a run did not complete. */
export type RunFailure = 'aborted' | 'denied' | 'failed'

/** A run's statuses, each outweighing those before it. */
const BY_WEIGHT: readonly ExecutionStatus[] = ['completed', 'failed', 'denied', 'aborted']

/**
 * What a run has recorded so far: one record per step that was reached, the order in which
 * called steps ended, the first reason to stop, and the worst failure seen.
 */
export class RunRecord {
  /** By position in the plan, once {@link place}d; steps that were never reached have none. */
  readonly steps = new StepRecords()
  /**
   * Steps recorded without a status yet, in the order they were recorded, with some that have
   * ended since: those are dropped now and then, not one by one (a long-lived Set whose entries
   * come and go every step gets a new table, in the old generation, at each growth or shrink).
   */
  readonly #open: string[] = []
  /** Length of {@link #open} when its ended steps were last dropped. */
  #kept = 0
  /** Ids of the steps whose tool was called, in the order they ended. */
  readonly order: string[] = []
  /** The first issue that stopped the run or one of its steps. */
  reason: PlanIssue | undefined
  #status: ExecutionStatus = 'completed'

  /** Notes a failure; the first issue given becomes the run's reason. */
  note(failure: RunFailure, issue?: PlanIssue): void {
    if (BY_WEIGHT.indexOf(failure) > BY_WEIGHT.indexOf(this.#status)) this.#status = failure
    if (issue !== undefined) this.reason ??= issue
  }

  /** The run's status: aborted over denied over failed over completed. */
  status(): ExecutionStatus {
    return this.#status
  }

  /** Records a step: started (no status yet), or ended without its tool (skipped, or earlier). */
  settle(stepId: string, result: StepRecord): void {
    this.steps.set(stepId, result)
    if (result.status === undefined) {
      this.#open.push(stepId)
      if (this.#open.length >= 2 * this.#kept + 64) this.#dropEnded()
    }
  }

  /** Ids of the steps recorded and not ended, in the order they were recorded. */
  open(): string[] {
    this.#dropEnded()
    return [...new Set(this.#open)]
  }

  /** Drops the steps that have a status now from {@link #open}, in place. */
  #dropEnded(): void {
    const open = this.#open
    let kept = 0
    for (let index = 0; index < open.length; index += 1) {
      const stepId = stringAt(open, index)
      if (this.steps.statusOf(stepId) === undefined) open[kept++] = stepId
    }
    open.length = kept
    this.#kept = kept
  }

  /** Marks a step whose tool was called as ended. */
  ended(stepId: string, result: StepRecord, status: 'done' | 'failed' | 'aborted', at: number) {
    result.status = status
    result.endedAt = at
    this.order.push(stepId)
    if (status === 'done') this.steps.compact(stepId, result)
  }
}
