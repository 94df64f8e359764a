import { itemAt, PlanError, type PlanIssue, stringAt } from '@plan/shell/common'
import { createGuardAudit, type GuardAudit } from '../guard/guard-audit.js'
import type { AuditEvent } from '../types/audit-event.js'
import type { CompiledPlan, CompiledStep } from '../types/compiled-plan.js'
import type { JsonValue } from '../types/json-value.js'
import type { PlanGuard, PlanGuardState } from '../types/plan-guard.js'
import type { ToolFunction } from '../types/tool-function.js'
import { errorMessage } from '../util/error-message.js'
import { runIssue } from '../util/run-issue.js'
import type { ExecutePlanOptions } from './execute-plan-options.js'
import type { ExecutionEvent, ExecutionStepStatus } from './execution-event.js'
import type { ExecutionResult, ExecutionStepResult } from './execution-result.js'
import { type ExecutionSettings, readExecutionSettings } from './execution-settings.js'
import { type RunFailure, RunRecord } from './run-record.js'
import { RunningCalls } from './running-calls.js'
import { createStepGraph, type StepGraph } from './step-graph.js'
import type { StepRecord } from './step-records.js'
import { type StepLauncher, StepScheduler } from './step-scheduler.js'

/**
 * One run of a plan (guard, scheduler, calls in flight, record of results): decides how it stops
 * (halt, fail-fast, skipped dependents) and ends it exactly once; {@link StepLauncher} runs a step.
 */
export class ExecutionRun {
  readonly settings: ExecutionSettings
  readonly graph: StepGraph
  readonly record = new RunRecord()
  readonly calls: RunningCalls
  readonly scheduler: StepScheduler
  readonly startedAt: number
  /** Settles with the run's result when the run ends. */
  readonly result: Promise<ExecutionResult>
  readonly #options: ExecutePlanOptions
  readonly #audit: GuardAudit
  /** The restored guard's state, when the run resumes one; a fresh guard has none to read. */
  readonly #state: PlanGuardState | undefined
  #finished = false
  #resolve: (result: ExecutionResult) => void = () => {}
  #deadline: ReturnType<typeof setTimeout> | undefined
  readonly #onAbort = () =>
    this.halt(
      runIssue('aborted', 'The run was aborted.', 'The caller cancelled the run.'),
      'aborted',
    )

  constructor(
    readonly guard: PlanGuard,
    readonly plan: CompiledPlan,
    readonly tools: Readonly<Record<string, ToolFunction>>,
    options: ExecutePlanOptions,
    launch: (run: ExecutionRun, stepId: string, launched: () => void) => Promise<void>,
  ) {
    this.#options = options
    this.#audit = createGuardAudit(options.audit)
    this.settings = readExecutionSettings(options)
    this.graph = createStepGraph(plan)
    this.record.steps.place(this.graph.steps.ids, this.graph.steps.positions)
    this.calls = new RunningCalls(this.settings.timeoutMs)
    this.scheduler = new StepScheduler(this.graph, {
      concurrency: this.settings.concurrency,
      launch: (stepId, launched) => launch(this, stepId, launched),
      onIdle: () => this.finish(),
      onError: (stepId, error) => this.#internalError(stepId, error),
    })
    this.#state = options.guard === undefined ? undefined : guard.snapshot()
    this.startedAt = this.settings.now()
    this.result = new Promise<ExecutionResult>((resolve) => {
      this.#resolve = resolve
    })
  }

  /** Whether the run has ended (late results of running steps are then ignored). */
  get finished(): boolean {
    return this.#finished
  }

  /** The step with this id (the scheduler only hands out ids of the plan). */
  step(stepId: string): CompiledStep {
    const step = this.graph.step(stepId)
    if (step === undefined) throw new RangeError(`no step ${JSON.stringify(stepId)} in the plan`)
    return step
  }

  /** Sends a progress event; a listener that throws changes nothing. */
  emit(event: ExecutionEvent): void {
    try {
      this.#options.onEvent?.(event)
    } catch {
      // A progress listener must not change the run.
    }
  }

  /** Writes a run-level decision; false when the sink failed. */
  audit(event: AuditEvent): boolean {
    return this.#audit.write(event)
  }

  /** Starts the run: restores a resumed run's results, then starts the ready steps. */
  start(): Promise<ExecutionResult> {
    this.#restore()
    this.#seed()
    const steps = this.graph.size
    this.emit({ type: 'plan-start', at: this.startedAt, steps })
    if (!this.audit({ type: 'run_started', planHash: this.plan.hash, steps })) {
      const message = 'The start of the run could not be written to the audit log.'
      this.halt(runIssue('audit_failed', message, 'Fix the audit log and run again.'), 'failed')
      return this.result
    }
    if (this.#options.signal?.aborted === true) {
      this.#onAbort()
      return this.result
    }
    this.#options.signal?.addEventListener('abort', this.#onAbort, { once: true })
    this.#startDeadline()
    this.scheduler.pump()
    return this.result
  }

  /** A step succeeded: its dependents may become ready. */
  completed(stepId: string): void {
    this.scheduler.completed(stepId)
  }

  /** Records a step whose tool was called as ended at `at`, with its `step-end` event. */
  endStep(
    step: { readonly id: string; readonly tool: string },
    result: StepRecord,
    status: 'done' | 'failed' | 'aborted',
    at: number,
    since: number,
  ): void {
    this.record.ended(step.id, result, status, at)
    const event: Extract<ExecutionEvent, { type: 'step-end' }> = {
      type: 'step-end',
      at,
      stepId: step.id,
      tool: step.tool,
      status,
      attempts: result.attempts,
      durationMs: at - since,
    }
    this.emit(status === 'failed' ? { ...event, error: result.error } : event)
  }

  /** A step was denied or failed for good: stop the run (fail-fast) or skip its dependents. */
  stepFailed(stepId: string, issue: PlanIssue, failure: 'denied' | 'failed'): void {
    if (this.settings.failFast) {
      this.halt(issue, failure)
      return
    }
    this.record.note(failure, issue)
    this.#skipDependents(stepId, issue)
  }

  /** Stops the run now: running steps are aborted (their late results ignored), the rest skipped. */
  halt(issue: PlanIssue, failure: RunFailure): void {
    if (this.#finished) return
    this.record.note(failure, issue)
    const at = this.settings.now()
    this.calls.abortAll(new PlanError(issue.message, { issues: [issue] }))
    for (const stepId of this.record.open()) {
      const result = this.record.steps.get(stepId)
      if (result === undefined) continue
      // Being authorized, running, or waiting to retry: the step will not finish now.
      this.guard.fail(stepId, issue)
      if (result.attempts === 0) continue
      result.issues = [{ ...issue, stepId }]
      const tool = this.graph.step(stepId)?.tool ?? ''
      this.endStep({ id: stepId, tool }, result, 'aborted', at, result.startedAt ?? at)
    }
    this.scheduler.stop()
    this.finish()
  }

  /** Ends the run once: unreached steps are skipped, and the result is handed out. */
  finish(): void {
    if (this.#finished) return
    this.#finished = true
    this.scheduler.stop()
    clearTimeout(this.#deadline)
    this.#options.signal?.removeEventListener('abort', this.#onAbort)
    const at = this.settings.now()
    this.#skipUnreached(at)
    const status = this.record.status()
    const reason = this.record.reason
    this.emit({ type: 'plan-end', at, status, durationMs: at - this.startedAt })
    const outcome: { -readonly [K in keyof ExecutionResult]: ExecutionResult[K] } = {
      status,
      steps: {},
      order: this.record.order,
      startedAt: this.startedAt,
      endedAt: at,
    }
    Object.defineProperty(outcome, 'steps', lazySteps(this.graph.steps.ids, this.record.steps))
    if (reason !== undefined) outcome.reason = reason
    // The run is over either way; a failed write here has nothing left to stop.
    this.audit({ type: 'run_ended', status, reason: reason ?? null })
    this.#resolve(outcome)
  }

  /** Records a step as skipped, with its `skipped` event when `at` is given. */
  #skip(stepId: string, message: string, at?: number): void {
    const issue = runIssue('step_skipped', message, undefined, stepId)
    this.record.settle(stepId, { status: 'skipped', attempts: 0, issues: [issue] })
    if (at !== undefined) this.emit({ type: 'skipped', at, stepId, issue })
  }

  /** Records every step that never ended as skipped, with its `skipped` event. */
  #skipUnreached(at: number): void {
    const reason = this.record.reason
    const message =
      reason === undefined
        ? 'The step never became ready.'
        : `The run stopped early: ${reason.message}`
    for (const stepId of this.graph.steps.ids)
      if (this.record.steps.statusOf(stepId) === undefined) this.#skip(stepId, message, at)
  }

  // Resume: finished steps keep their result; steps that were running run again.
  #restore(): void {
    const state = this.#state
    if (state === undefined) return
    for (const stepId of this.graph.steps.ids) {
      const status = Object.hasOwn(state.status, stepId) ? state.status[stepId] : undefined
      if (status === 'done') {
        const outputs = state.outputs
        const output = Object.hasOwn(outputs, stepId) ? (outputs[stepId] as JsonValue) : null
        this.record.settle(stepId, { status: 'done', output, attempts: 0 })
      } else if (status === 'failed' || status === 'skipped') {
        const message = `Step ${JSON.stringify(stepId)} ${status} before this run resumed.`
        const code = status === 'failed' ? 'step_failed' : 'step_skipped'
        const issues = [runIssue(code, message, undefined, stepId)]
        this.record.settle(stepId, { status, attempts: 0, issues })
        if (status === 'failed') this.record.note('failed')
      } else if (status === 'running') {
        this.guard.release(stepId)
      }
    }
  }

  // Every step not finished yet is ready, waits for dependencies, or is skipped.
  #seed(): void {
    const results = this.record.steps
    const { ids, size } = this.graph.steps
    for (let position = 0; position < size; position += 1) {
      const stepId = stringAt(ids, position)
      if (results.has(stepId)) continue
      let unmet = 0
      let blocked = false
      const dependencies = this.graph.steps.dependencies(position)
      for (let edge = 0; edge < dependencies.length; edge += 1) {
        const status = results.statusOf(stringAt(ids, itemAt(dependencies, edge)))
        if (status !== 'done') unmet += 1
        if (status !== undefined && status !== 'done') blocked = true
      }
      if (blocked) this.#skip(stepId, 'A dependency did not finish.')
      else this.scheduler.wait(stepId, unmet)
    }
  }

  #startDeadline(): void {
    const deadlineMs = this.settings.deadlineMs
    if (deadlineMs === undefined) return
    const left = (this.#state?.startedAt ?? this.startedAt) + deadlineMs - this.settings.now()
    const onDeadline = () => {
      const issue = runIssue(
        'deadline_exceeded',
        `The run has passed its deadline of ${deadlineMs} ms.`,
        'Stop and report what was done.',
      )
      this.audit({ type: 'run_stopped', issue })
      this.halt(issue, 'denied')
    }
    this.#deadline = setTimeout(onDeadline, Math.max(0, left))
  }

  #skipDependents(stepId: string, cause: PlanIssue): void {
    const stack = [...this.graph.dependents(stepId)]
    const at = this.settings.now()
    const message = `Skipped because step ${JSON.stringify(cause.stepId ?? stepId)} did not finish: ${cause.message}`
    while (stack.length > 0) {
      const id = stack.pop()
      if (id === undefined) break
      if (this.record.steps.has(id)) continue
      this.scheduler.forget(id)
      this.#skip(id, message, at)
      stack.push(...this.graph.dependents(id))
    }
  }

  // Only a bug in the executor itself lands here; fail closed.
  #internalError(stepId: string, error: unknown): void {
    this.halt(
      runIssue(
        'step_failed',
        `Internal error while running step ${JSON.stringify(stepId)}: ${errorMessage(error)}`,
        undefined,
        stepId,
      ),
      'failed',
    )
  }
}

/** Whether a step's record has a status, which makes it a step result. */
function hasEnded(
  record: StepRecord | undefined,
): record is StepRecord & { status: ExecutionStepStatus } {
  return record?.status !== undefined
}

/**
 * `ExecutionResult.steps` as an enumerable getter: the null-prototype record keyed by step id is
 * made when first read (a run's records stay by plan position until then), then kept.
 */
function lazySteps(
  ids: readonly string[],
  records: ReadonlyMap<string, StepRecord>,
): PropertyDescriptor {
  let steps: Record<string, ExecutionStepResult> | undefined
  let source: ReadonlyMap<string, StepRecord> | undefined = records
  return {
    enumerable: true,
    get(): Readonly<Record<string, ExecutionStepResult>> {
      if (steps !== undefined || source === undefined) return steps ?? Object.create(null)
      const built: Record<string, ExecutionStepResult> = Object.create(null)
      for (const stepId of ids) {
        const result = source.get(stepId)
        if (hasEnded(result)) built[stepId] = result
      }
      steps = built
      source = undefined
      return built
    },
  }
}
