import { PlanError } from '../errors/plan-error.js'
import { createPlanGuard } from '../guard/create-plan-guard.js'
import { createIssue } from '../issues/create-issue.js'
import type { AuditEvent } from '../types/audit-event.js'
import type { AuditSink } from '../types/audit-sink.js'
import type { CompiledPlan, CompiledStep } from '../types/compiled-plan.js'
import type { JsonObject, JsonValue } from '../types/json-value.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import type { PlanGuard } from '../types/plan-guard.js'
import type { IssueCode, PlanIssue } from '../types/plan-issue.js'
import type { ToolFunction } from '../types/tool-function.js'
import { outputToJson } from '../util/json-copy.js'
import type { ExecutionEvent, ExecutionStatus, ExecutionStepStatus } from './execution-event.js'
import { ReadyQueue } from './ready-queue.js'

/** Options for {@link executePlan}. */
export interface ExecutePlanOptions {
  /** The compiler (and so the policy) every call is authorized with. */
  readonly compiler: PlanCompiler
  /** A guard to run through, e.g. one restored from a snapshot; created from the plan when omitted. */
  readonly guard?: PlanGuard
  /** Most steps running at once. Default 4. */
  readonly concurrency?: number
  /** Time limit of one attempt of one step, in milliseconds. No limit by default. */
  readonly timeoutMs?: number
  /** Extra attempts after a step throws, times out or returns a non-JSON value (0 to 10). Default 0. */
  readonly retries?: number
  /** Pause before a retry, in milliseconds. Default 0. */
  readonly retryDelayMs?: number
  /** Stops the run: running steps are aborted, the rest skipped. */
  readonly signal?: AbortSignal
  /** Stop at the first failed or denied step (default); when false, only its dependents are skipped. */
  readonly failFast?: boolean
  /** Check path arguments on disk before each call. Default true. */
  readonly checkPathsOnDisk?: boolean
  /** Largest accepted step output, as JSON text. Default 16 MiB. */
  readonly maxOutputBytes?: number
  /** Progress events; an exception thrown here is ignored. */
  readonly onEvent?: (event: ExecutionEvent) => void
  /** Clock, for tests. Defaults to `Date.now`. */
  readonly now?: () => number
  /**
   * Where decisions are written: the run's start, end and deadline here, and every guard
   * decision when the executor creates the guard (a guard passed in writes to its own sink).
   * A failed write stops the run.
   */
  readonly audit?: AuditSink
  /** The plan's `signPlan` signature, checked when the executor creates the guard. */
  readonly signature?: string
  /** The secret plans are signed with. */
  readonly secret?: string | Uint8Array
}

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

/** The result of {@link executePlan}. */
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

/** A step's result while the run goes on: no status yet while it is being authorized or run. */
type MutableResult = { -readonly [K in keyof ExecutionStepResult]?: ExecutionStepResult[K] } & {
  attempts: number
}

type Outcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: unknown; readonly issue?: PlanIssue }

const MAX_RETRIES = 10
const DEFAULT_MAX_OUTPUT_BYTES = 16 * 1024 * 1024

function makeIssue(code: IssueCode, message: string, stepId?: string, hint?: string): PlanIssue {
  return createIssue(code, message, [], hint, stepId)
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message
  try {
    return String(error)
  } catch {
    return 'an unprintable error'
  }
}

/** Longest remaining chain (in steps) from each step to the end of the plan. */
function remainingDepth(
  plan: CompiledPlan,
  stepById: ReadonlyMap<string, CompiledStep>,
  dependents: ReadonlyMap<string, string[]>,
): Map<string, number> {
  const depth = new Map<string, number>()
  for (let position = plan.order.length - 1; position >= 0; position -= 1) {
    const id = plan.order[position] as string
    let longest = 0
    for (const dependent of dependents.get(id) ?? [])
      longest = Math.max(longest, depth.get(dependent) ?? 0)
    if (stepById.has(id)) depth.set(id, longest + 1)
  }
  return depth
}

/**
 * Runs an approved plan: ready steps run in parallel up to `concurrency`, each call goes
 * through a {@link PlanGuard} (planned arguments, references resolved and checked again,
 * paths checked on disk, budgets), with a per-step timeout, bounded retries, an abort
 * signal and progress events. Steps on the longest remaining chain start first.
 *
 * A tool that throws, hangs or returns something that is not JSON fails its own step only.
 * The promise never rejects for a tool's misbehaviour; it throws `PlanError` only when the
 * plan is not approved by `options.compiler`.
 *
 * @example
 * ```ts
 * const compiler = await createPlanCompiler(policy)
 * const { tools } = createReferenceTools(compiler)
 * const result = await executePlan(compiler.compile(plan), tools, {
 *   compiler,
 *   concurrency: 4,
 *   timeoutMs: 30_000,
 *   onEvent: (event) => console.error(event.type, 'stepId' in event ? event.stepId : ''),
 * })
 * if (result.status !== 'completed') console.error(result.reason)
 * ```
 */
export async function executePlan(
  compiled: CompiledPlan,
  tools: Readonly<Record<string, ToolFunction>>,
  options: ExecutePlanOptions,
): Promise<ExecutionResult> {
  const now = options.now ?? Date.now
  const guard =
    options.guard ??
    createPlanGuard(compiled, {
      compiler: options.compiler,
      checkPathsOnDisk: options.checkPathsOnDisk ?? true,
      now,
      ...(options.audit === undefined ? {} : { audit: options.audit }),
      ...(options.signature === undefined ? {} : { signature: options.signature }),
      ...(options.secret === undefined ? {} : { secret: options.secret }),
    })
  const plan = guard.plan
  if (plan === undefined || plan.hash !== compiled.hash)
    throw new PlanError('The guard does not hold the plan to execute.', {
      code: 'invalid_configuration',
    })
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 4) || 1)
  const retries = Math.min(MAX_RETRIES, Math.max(0, Math.floor(options.retries ?? 0) || 0))
  const retryDelayMs = Math.max(0, options.retryDelayMs ?? 0)
  const failFast = options.failFast ?? true
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES
  const deadlineMs = options.compiler.policy.policy.budgets.deadlineMs

  /** Writes a run-level decision; false when the sink failed. */
  const audit = (event: AuditEvent): boolean => {
    if (options.audit === undefined) return true
    try {
      options.audit.write(event)
      return true
    } catch {
      return false
    }
  }

  const emit = (event: ExecutionEvent) => {
    try {
      options.onEvent?.(event)
    } catch {
      // A progress listener must not change the run.
    }
  }

  const stepById = new Map<string, CompiledStep>()
  const indexById = new Map<string, number>()
  const dependents = new Map<string, string[]>()
  for (const step of plan.steps) {
    stepById.set(step.id, step)
    indexById.set(step.id, step.index)
    for (const dependency of step.dependsOn) {
      const list = dependents.get(dependency)
      if (list === undefined) dependents.set(dependency, [step.id])
      else list.push(step.id)
    }
  }
  const queue = new ReadyQueue(remainingDepth(plan, stepById, dependents), indexById)
  const results = new Map<string, MutableResult>()
  const remaining = new Map<string, number>()
  const controllers = new Map<string, AbortController>()
  const timers = new Map<string, ReturnType<typeof setTimeout>>()
  const order: string[] = []
  // A guard passed in may carry progress (a resumed run); a fresh one has none to read.
  const state = options.guard === undefined ? undefined : guard.snapshot()
  const startedAt = now()
  let active = 0
  let finished = false
  let reason: PlanIssue | undefined
  let denied = false
  let failed = false
  let aborted = false

  // Resume: finished steps keep their result; steps that were running run again.
  for (const step of state === undefined ? [] : plan.steps) {
    const status = Object.hasOwn(state?.status ?? {}, step.id) ? state?.status[step.id] : undefined
    if (status === 'done') {
      const outputs = state?.outputs ?? {}
      const output = Object.hasOwn(outputs, step.id) ? (outputs[step.id] as JsonValue) : null
      results.set(step.id, { status: 'done', output, attempts: 0 })
    } else if (status === 'failed' || status === 'skipped') {
      results.set(step.id, {
        status: status,
        attempts: 0,
        issues: [
          makeIssue(
            status === 'failed' ? 'step_failed' : 'step_skipped',
            `Step ${JSON.stringify(step.id)} ${status} before this run resumed.`,
            step.id,
          ),
        ],
      })
      if (status === 'failed') failed = true
    } else if (status === 'running') {
      guard.release(step.id)
    }
  }
  for (const step of plan.steps) {
    if (results.has(step.id)) continue
    const unmet = step.dependsOn.filter(
      (dependency) => results.get(dependency)?.status !== 'done',
    ).length
    if (
      step.dependsOn.some(
        (dependency) => results.has(dependency) && results.get(dependency)?.status !== 'done',
      )
    ) {
      results.set(step.id, {
        status: 'skipped',
        attempts: 0,
        issues: [makeIssue('step_skipped', 'A dependency did not finish.', step.id)],
      })
    } else if (unmet === 0) {
      queue.push(step.id)
    } else {
      remaining.set(step.id, unmet)
    }
  }

  let resolveRun: (result: ExecutionResult) => void = () => {}
  const run = new Promise<ExecutionResult>((resolve) => {
    resolveRun = resolve
  })

  function finish(): void {
    if (finished) return
    finished = true
    clearTimeout(deadlineTimer)
    options.signal?.removeEventListener('abort', onAbort)
    const steps: Record<string, ExecutionStepResult> = Object.create(null)
    const at = now()
    for (const step of plan?.steps ?? []) {
      let result = results.get(step.id)
      if (result?.status === undefined) {
        const issue = makeIssue(
          'step_skipped',
          reason === undefined
            ? 'The step never became ready.'
            : `The run stopped early: ${reason.message}`,
          step.id,
        )
        result = { status: 'skipped', attempts: 0, issues: [issue] }
        emit({ type: 'skipped', at, stepId: step.id, issue })
      }
      steps[step.id] = result as ExecutionStepResult
    }
    const status: ExecutionStatus = aborted
      ? 'aborted'
      : denied
        ? 'denied'
        : failed
          ? 'failed'
          : 'completed'
    emit({ type: 'plan-end', at, status, durationMs: at - startedAt })
    const outcome: { -readonly [K in keyof ExecutionResult]: ExecutionResult[K] } = {
      status,
      steps,
      order,
      startedAt,
      endedAt: at,
    }
    if (reason !== undefined) outcome.reason = reason
    // The run is over either way; a failed write here has nothing left to stop.
    audit({ type: 'run_ended', status, reason: reason ?? null })
    resolveRun(outcome)
  }

  /** Stops the run now: running steps are aborted (their late results ignored), the rest skipped. */
  function halt(issue: PlanIssue, kind: 'aborted' | 'denied' | 'failed'): void {
    if (finished) return
    reason ??= issue
    if (kind === 'aborted') aborted = true
    else if (kind === 'denied') denied = true
    else failed = true
    const at = now()
    for (const controller of controllers.values())
      controller.abort(new PlanError(issue.message, { issues: [issue] }))
    controllers.clear()
    for (const timer of timers.values()) clearTimeout(timer)
    timers.clear()
    for (const [stepId, result] of results) {
      if (result.status !== undefined) continue
      // Being authorized, running, or waiting to retry: the step will not finish now.
      guard.fail(stepId, issue)
      if (result.attempts === 0) continue
      result.status = 'aborted'
      result.endedAt = at
      result.issues = [{ ...issue, stepId }]
      order.push(stepId)
      emit({
        type: 'step-end',
        at,
        stepId,
        tool: stepById.get(stepId)?.tool ?? '',
        status: 'aborted',
        attempts: result.attempts,
        durationMs: at - (result.startedAt ?? at),
      })
    }
    queue.drain()
    finish()
  }

  function skipDependents(stepId: string, cause: PlanIssue): void {
    const stack = [...(dependents.get(stepId) ?? [])]
    const at = now()
    while (stack.length > 0) {
      const id = stack.pop() as string
      if (results.has(id)) continue
      const issue = makeIssue(
        'step_skipped',
        `Skipped because step ${JSON.stringify(cause.stepId ?? stepId)} did not finish: ${cause.message}`,
        id,
      )
      results.set(id, { status: 'skipped', attempts: 0, issues: [issue] })
      remaining.delete(id)
      emit({ type: 'skipped', at, stepId: id, issue })
      stack.push(...(dependents.get(id) ?? []))
    }
  }

  function settleFailure(stepId: string, issue: PlanIssue, kind: 'denied' | 'failed'): void {
    if (kind === 'denied') denied = true
    else failed = true
    if (failFast) {
      halt(issue, kind)
      return
    }
    reason ??= issue
    skipDependents(stepId, issue)
  }

  function invoke(tool: ToolFunction, args: JsonObject, stepId: string): Promise<Outcome> {
    const controller = new AbortController()
    controllers.set(stepId, controller)
    return new Promise<Outcome>((resolve) => {
      let settled = false
      let timer: ReturnType<typeof setTimeout> | undefined
      const settle = (outcome: Outcome) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        if (controllers.get(stepId) === controller) controllers.delete(stepId)
        if (timer !== undefined && timers.get(stepId) === timer) timers.delete(stepId)
        resolve(outcome)
      }
      if (options.timeoutMs !== undefined) {
        timer = setTimeout(() => {
          const issue = makeIssue(
            'step_timeout',
            `Step ${JSON.stringify(stepId)} took longer than ${options.timeoutMs} ms.`,
            stepId,
            'Make the step smaller or raise timeoutMs.',
          )
          const error = new PlanError(issue.message, { issues: [issue] })
          controller.abort(error)
          settle({ ok: false, error, issue })
        }, options.timeoutMs)
        timers.set(stepId, timer)
      }
      let returned: unknown
      try {
        returned = tool(args, { signal: controller.signal, stepId })
      } catch (error) {
        settle({ ok: false, error })
        return
      }
      // Settles once; a late resolution or rejection (after a timeout) is absorbed here.
      Promise.resolve(returned).then(
        (value) => settle({ ok: true, value }),
        (error: unknown) => settle({ ok: false, error }),
      )
    })
  }

  function delay(milliseconds: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, milliseconds))
  }

  async function runStep(stepId: string): Promise<void> {
    const step = stepById.get(stepId) as CompiledStep
    const tool = Object.hasOwn(tools, step.tool) ? tools[step.tool] : undefined
    const result: MutableResult = { attempts: 0 }
    results.set(stepId, result)
    const deny = (issues: readonly PlanIssue[]) => {
      guard.fail(stepId, issues[0])
      const at = now()
      result.status = 'denied'
      result.issues = issues
      result.endedAt = at
      emit({ type: 'denied', at, stepId, tool: step.tool, issues })
      settleFailure(stepId, issues[0] as PlanIssue, 'denied')
    }
    if (typeof tool !== 'function') {
      deny([
        makeIssue(
          'unknown_tool',
          `No implementation of tool ${JSON.stringify(step.tool)} was given to executePlan.`,
          stepId,
          'Pass a function for every tool of the plan.',
        ),
      ])
      return
    }
    for (;;) {
      const resolved = guard.resolveArgs(stepId)
      if (!resolved.success) {
        deny([resolved.issue])
        return
      }
      const decision = await guard.authorize({ tool: step.tool, args: resolved.args, stepId })
      if (finished) {
        if (decision.allowed) guard.fail(stepId, reason)
        return
      }
      if (!decision.allowed) {
        deny(decision.issues)
        return
      }
      result.attempts += 1
      const attemptStart = now()
      result.startedAt ??= attemptStart
      emit({
        type: 'step-start',
        at: attemptStart,
        stepId,
        tool: step.tool,
        attempt: result.attempts,
        args: decision.args,
      })
      const outcome = await invoke(tool, decision.args, stepId)
      if (finished || result.status !== undefined) return
      let error: unknown
      let issue: PlanIssue | undefined
      if (outcome.ok) {
        const json = outputToJson(outcome.value, maxOutputBytes)
        if (json.ok) {
          const at = now()
          guard.complete(stepId, json.value)
          result.status = 'done'
          result.output = json.value
          result.endedAt = at
          order.push(stepId)
          emit({
            type: 'step-end',
            at,
            stepId,
            tool: step.tool,
            status: 'done',
            attempts: result.attempts,
            durationMs: at - attemptStart,
          })
          for (const dependent of dependents.get(stepId) ?? []) {
            if (results.has(dependent)) continue
            const left = (remaining.get(dependent) ?? 1) - 1
            if (left > 0) remaining.set(dependent, left)
            else {
              remaining.delete(dependent)
              queue.push(dependent)
            }
          }
          return
        }
        error = new PlanError(
          `Tool ${step.tool} returned a value that is not JSON: ${json.reason}.`,
          { code: 'step_failed' },
        )
        issue = makeIssue(
          'step_failed',
          `Step ${JSON.stringify(stepId)} returned a value that is not JSON: ${json.reason}.`,
          stepId,
          'Return plain JSON data from tools.',
        )
      } else {
        error = outcome.error
        issue = outcome.issue
      }
      issue ??= makeIssue(
        'step_failed',
        `Step ${JSON.stringify(stepId)} failed: ${errorMessage(error)}`,
        stepId,
      )
      if (result.attempts <= retries) {
        guard.release(stepId)
        emit({
          type: 'step-retry',
          at: now(),
          stepId,
          tool: step.tool,
          attempt: result.attempts,
          error,
        })
        if (retryDelayMs > 0) await delay(retryDelayMs)
        if (finished) return
        continue
      }
      const at = now()
      guard.fail(stepId, error)
      result.status = 'failed'
      result.error = error
      result.issues = [issue]
      result.endedAt = at
      order.push(stepId)
      emit({
        type: 'step-end',
        at,
        stepId,
        tool: step.tool,
        status: 'failed',
        attempts: result.attempts,
        durationMs: at - attemptStart,
        error,
      })
      settleFailure(stepId, issue, 'failed')
      return
    }
  }

  function pump(): void {
    while (!finished && active < concurrency && queue.size > 0) {
      const stepId = queue.pop() as string
      active += 1
      runStep(stepId)
        .catch((error: unknown) => {
          // Only a bug in the executor itself lands here; fail closed.
          halt(
            makeIssue(
              'step_failed',
              `Internal error while running step ${JSON.stringify(stepId)}: ${errorMessage(error)}`,
              stepId,
            ),
            'failed',
          )
        })
        .finally(() => {
          active -= 1
          pump()
        })
    }
    if (!finished && active === 0 && queue.size === 0) finish()
  }

  const onAbort = () =>
    halt(
      makeIssue('aborted', 'The run was aborted.', undefined, 'The caller cancelled the run.'),
      'aborted',
    )
  let deadlineTimer: ReturnType<typeof setTimeout> | undefined
  emit({ type: 'plan-start', at: startedAt, steps: plan.steps.length })
  if (!audit({ type: 'run_started', planHash: plan.hash, steps: plan.steps.length })) {
    halt(
      makeIssue(
        'audit_failed',
        'The start of the run could not be written to the audit log.',
        undefined,
        'Fix the audit log and run again.',
      ),
      'failed',
    )
    return run
  }
  if (options.signal?.aborted === true) {
    onAbort()
    return run
  }
  options.signal?.addEventListener('abort', onAbort, { once: true })
  if (deadlineMs !== undefined) {
    const left = (state?.startedAt ?? startedAt) + deadlineMs - now()
    const onDeadline = () => {
      const issue = makeIssue(
        'deadline_exceeded',
        `The run has passed its deadline of ${deadlineMs} ms.`,
        undefined,
        'Stop and report what was done.',
      )
      audit({ type: 'run_stopped', issue })
      halt(issue, 'denied')
    }
    deadlineTimer = setTimeout(onDeadline, Math.max(0, left))
  }
  pump()
  return run
}
