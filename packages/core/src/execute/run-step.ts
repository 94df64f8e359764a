import { itemAt, PlanError, type PlanIssue } from '@plan/shell/common'
import { traceCallDecision } from '../telemetry/decision-spans.js'
import type { CompiledStep } from '../types/compiled-plan.js'
import type { JsonObject } from '../types/json-value.js'
import { errorMessage } from '../util/error-message.js'
import { outputToJson } from '../util/json-copy.js'
import { runIssue } from '../util/run-issue.js'
import type { ExecutionRun } from './execution-run.js'
import { newStepRecord } from './run-record.js'
import type { CallOutcome } from './running-calls.js'
import type { StepRecord } from './step-records.js'

/** Why an attempt failed: what to report, and the issue that says so. */
interface AttemptFailure {
  readonly error: unknown
  readonly issue: PlanIssue
}

/**
 * Runs one step of a run: authorizes the call through the guard (references resolved, checked
 * again, budgets), calls the tool, and records the outcome — done, failed after its retries, or
 * denied — with its events and the guard's bookkeeping. Calls `launched` when the tool is called.
 */
export async function runStep(run: ExecutionRun, stepId: string, launched: () => void) {
  const step = run.step(stepId)
  const tool = Object.hasOwn(run.tools, step.tool) ? run.tools[step.tool] : undefined
  const result = newStepRecord()
  run.record.settle(stepId, result)
  if (typeof tool !== 'function') {
    const message = `No implementation of tool ${JSON.stringify(step.tool)} was given to executePlan.`
    const hint = 'Pass a function for every tool of the plan.'
    deny(run, step, result, [runIssue('unknown_tool', message, hint, stepId)])
    return
  }
  for (;;) {
    const args = await authorizeStep(run, step, result)
    if (args === undefined) return
    result.attempts += 1
    const attemptStart = run.settings.now()
    result.startedAt ??= attemptStart
    run.emit({
      type: 'step-start',
      at: attemptStart,
      stepId,
      tool: step.tool,
      attempt: result.attempts,
      args,
    })
    const call = run.calls.call(tool, args, stepId)
    launched()
    const outcome = await call
    if (run.finished || result.status !== undefined) return
    const failure = recordOutcome(run, step, result, outcome, attemptStart)
    if (failure === undefined) return
    if (!(await retry(run, step, result, failure))) {
      fail(run, step, result, failure, attemptStart)
      return
    }
    if (run.finished) return
  }
}

/** The authorized arguments, or undefined when the step was denied or the run ended meanwhile. */
async function authorizeStep(
  run: ExecutionRun,
  step: CompiledStep,
  result: StepRecord,
): Promise<JsonObject | undefined> {
  const resolved = run.guard.resolveArgs(step.id)
  if (!resolved.success) {
    traceStep(step, [resolved.issue])
    deny(run, step, result, [resolved.issue])
    return undefined
  }
  const decision = await run.guard.authorize({
    tool: step.tool,
    args: resolved.args,
    stepId: step.id,
  })
  traceStep(step, decision.allowed ? [] : decision.issues)
  if (run.finished) {
    if (decision.allowed) run.guard.fail(step.id, run.record.reason)
    return undefined
  }
  if (!decision.allowed) {
    deny(run, step, result, decision.issues)
    return undefined
  }
  return decision.args
}

// The executor is the caller of its tools: it reports each call's decision as adapters do.
function traceStep(step: CompiledStep, issues: readonly PlanIssue[]): void {
  traceCallDecision(
    {
      tool: step.tool,
      callId: undefined,
      allowed: issues.length === 0,
      stepId: issues.length === 0 ? step.id : undefined,
      issues,
    },
    'core',
  )
}

function deny(
  run: ExecutionRun,
  step: CompiledStep,
  result: StepRecord,
  issues: readonly PlanIssue[],
): void {
  run.guard.fail(step.id, issues[0])
  const at = run.settings.now()
  result.status = 'denied'
  result.issues = issues
  result.endedAt = at
  run.emit({ type: 'denied', at, stepId: step.id, tool: step.tool, issues })
  run.stepFailed(step.id, itemAt(issues, 0), 'denied')
}

/** Records a successful outcome (the step is done); otherwise says why the attempt failed. */
function recordOutcome(
  run: ExecutionRun,
  step: CompiledStep,
  result: StepRecord,
  outcome: CallOutcome,
  attemptStart: number,
): AttemptFailure | undefined {
  const stepId = step.id
  if (!outcome.ok) {
    const issue =
      outcome.issue ??
      runIssue(
        'step_failed',
        `Step ${JSON.stringify(stepId)} failed: ${errorMessage(outcome.error)}`,
        undefined,
        stepId,
      )
    return { error: outcome.error, issue }
  }
  const json = outputToJson(outcome.value, run.settings.maxOutputBytes)
  if (!json.ok) {
    const error = new PlanError(
      `Tool ${step.tool} returned a value that is not JSON: ${json.reason}.`,
      { code: 'step_failed' },
    )
    const issue = runIssue(
      'step_failed',
      `Step ${JSON.stringify(stepId)} returned a value that is not JSON: ${json.reason}.`,
      'Return plain JSON data from tools.',
      stepId,
    )
    return { error, issue }
  }
  const at = run.settings.now()
  run.guard.complete(stepId, json.value)
  result.output = json.value
  run.endStep(step, result, 'done', at, attemptStart)
  run.completed(stepId)
  return undefined
}

/** Whether the step gets another attempt (after the retry delay). */
async function retry(
  run: ExecutionRun,
  step: CompiledStep,
  result: StepRecord,
  failure: AttemptFailure,
): Promise<boolean> {
  if (result.attempts > run.settings.retries) return false
  run.guard.release(step.id)
  run.emit({
    type: 'step-retry',
    at: run.settings.now(),
    stepId: step.id,
    tool: step.tool,
    attempt: result.attempts,
    error: failure.error,
  })
  const delay = run.settings.retryDelayMs
  if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay))
  return true
}

function fail(
  run: ExecutionRun,
  step: CompiledStep,
  result: StepRecord,
  failure: AttemptFailure,
  attemptStart: number,
): void {
  const at = run.settings.now()
  run.guard.fail(step.id, failure.error)
  result.error = failure.error
  result.issues = [failure.issue]
  run.endStep(step, result, 'failed', at, attemptStart)
  run.stepFailed(step.id, failure.issue, 'failed')
}
