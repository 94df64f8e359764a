import { checkPathOnDisk } from '../checks/path-on-disk.js'
import { PlanCompilationError } from '../errors/plan-compilation-error.js'
import { PlanError } from '../errors/plan-error.js'
import { createUntrustedFlowTracker } from '../flow/create-untrusted-flow-tracker.js'
import { createIssue } from '../issues/create-issue.js'
import { unreadableIssue } from '../issues/unreadable-issue.js'
import { verifyPlan } from '../sign/verify-plan.js'
import { checkTaintedCall } from '../taint/check-tainted-call.js'
import { checkTaintedOnDisk } from '../taint/check-tainted-on-disk.js'
import type { AuditEvent } from '../types/audit-event.js'
import type { CompiledPlan, CompiledStep } from '../types/compiled-plan.js'
import type { InterruptedCall } from '../types/interrupted-call.js'
import type { JsonObject, JsonValue } from '../types/json-value.js'
import type { PlanCompiler, PlanValidationResult } from '../types/plan-compiler.js'
import type {
  AuthorizeResult,
  PlanGuard,
  PlanGuardOptions,
  PlanGuardState,
  ResolveArgsResult,
  StepStatus,
  SubmitKind,
  SubmitOptions,
  SubmitResult,
  ToolCall,
} from '../types/plan-guard.js'
import type { IssueCode, PlanIssue } from '../types/plan-issue.js'
import { canonicalJson, sha256 } from '../util/canonical-json.js'
import { copyJson, defineValue, freezeJson, outputToJson } from '../util/json-copy.js'
import { interruptedCallIssue } from './interrupted-call.js'
import { normalizeUrlArguments } from './normalize-url-arguments.js'
import { hasPathArguments, pathArguments, writesPaths } from './path-arguments.js'
import { readGuardState } from './read-guard-state.js'
import { readToolCall } from './read-tool-call.js'
import { resolveReferences } from './resolve-references.js'

/** Largest step output the guard keeps for references, as JSON text. */
export const MAX_OUTPUT_BYTES = 16 * 1024 * 1024

type Path = readonly (string | number)[]

interface ReadyEntry {
  /** `tool \0 canonical arguments`, or undefined when the references cannot be resolved. */
  readonly key: string | undefined
  readonly args: JsonObject | undefined
  readonly issue: PlanIssue | undefined
}

function makeIssue(
  code: IssueCode,
  message: string,
  hint?: string,
  stepId?: string,
  path: Path = [],
): PlanIssue {
  return createIssue(code, message, [...path], hint, stepId)
}

function signatureError(message: string): PlanError {
  return new PlanError(message, {
    issues: [makeIssue('signature_invalid', message, 'Pass the secret the plans are signed with.')],
  })
}

function denied(issues: readonly PlanIssue[]): AuthorizeResult {
  return { allowed: false, issue: issues[0] as PlanIssue, issues }
}

/** A short, stable key for a call; long argument texts are hashed. */
function callKey(tool: string, canonical: string): string {
  const key = `${tool}\u0000${canonical}`
  return key.length <= 256 ? key : `${tool}\u0000sha256:${sha256(canonical)}`
}

function describeError(error: unknown): string {
  try {
    const text = error instanceof Error ? error.message : String(error)
    return text.length > 500 ? `${text.slice(0, 500)}…` : text
  } catch {
    return 'an unprintable error'
  }
}

function quote(value: string, limit = 200): string {
  return value.length > limit ? `${value.slice(0, limit)}…` : value
}

/** Ids, tools, arguments and dependencies: what must match between a plan and its re-validation. */
function sameSteps(left: CompiledPlan, right: CompiledPlan): boolean {
  if (left.steps.length !== right.steps.length) return false
  return left.steps.every((step, index) => {
    const other = right.steps[index]
    return (
      other !== undefined &&
      other.id === step.id &&
      other.tool === step.tool &&
      canonicalJson(other.args) === canonicalJson(step.args) &&
      canonicalJson([...other.dependsOn].sort()) === canonicalJson([...step.dependsOn].sort())
    )
  })
}

/**
 * Compiles a plan again from its steps, so a plan object that did not come from this
 * compiler (edited, forged, or restored from JSON) is never trusted as approved.
 */
function revalidate(
  compiler: PlanCompiler,
  plan: CompiledPlan,
): { plan: CompiledPlan; hashes: string[] } {
  try {
    return revalidateUnsafely(compiler, plan)
  } catch (error) {
    if (PlanError.isInstance(error)) throw error
    throw new PlanError('The plan to guard cannot be read.', {
      issues: [unreadableIssue('invalid_plan', 'plan to guard', error)],
      cause: error,
    })
  }
}

function revalidateUnsafely(
  compiler: PlanCompiler,
  plan: CompiledPlan,
): { plan: CompiledPlan; hashes: string[] } {
  if (compiler.approves(plan)) return { plan, hashes: [plan.hash] }
  const steps = Array.isArray(plan?.steps) ? plan.steps : undefined
  if (steps === undefined)
    throw new PlanError('The plan to guard is not a compiled plan.', { code: 'invalid_plan' })
  const input = {
    steps: steps.map((step) => ({
      id: step?.id,
      tool: step?.tool,
      args: step?.args,
      depends_on: step?.dependsOn,
    })),
  }
  const result = compiler.validate(input)
  if (!result.success) throw new PlanCompilationError(result.issues)
  // The hash covers every dependency, explicit or implied, so a faithful copy hashes the same;
  // a plan whose claimed hash differs was edited (or forged) and is refused.
  if (!sameSteps(plan, result.plan) || plan.hash !== result.plan.hash)
    throw new PlanError('The plan to guard differs from what the compiler approves.', {
      code: 'plan_tampered',
    })
  return { plan: result.plan, hashes: [result.plan.hash] }
}

/** Tools and arguments of a turn, ignoring step ids (fresh tool-call ids every turn). */
function turnSignature(plan: CompiledPlan): string {
  const calls = plan.steps.map((step) => canonicalJson([step.tool, step.args]))
  return sha256(calls.join('\n'))
}

/** True when `live` equals `planned`, any `$ref` in `planned` matching anything. */
function matchesWithReferences(planned: JsonValue, live: JsonValue): boolean {
  if (typeof planned !== 'object' || planned === null) return planned === live
  if (Array.isArray(planned)) {
    return (
      Array.isArray(live) &&
      planned.length === live.length &&
      planned.every((item, index) => matchesWithReferences(item, live[index] as JsonValue))
    )
  }
  if (Object.hasOwn(planned, '$ref')) return true
  if (typeof live !== 'object' || live === null || Array.isArray(live)) return false
  const keys = Object.keys(planned)
  if (keys.length !== Object.keys(live).length) return false
  return keys.every(
    (key) =>
      Object.hasOwn(live, key) &&
      matchesWithReferences(planned[key] as JsonValue, live[key] as JsonValue),
  )
}

/**
 * Creates the run-time guard of an approved plan: every live tool call must match a ready
 * step of the plan, with the planned arguments (references resolved), within the run's
 * budgets, and pass the argument and on-disk path checks again.
 *
 * The plan is compiled again with `options.compiler` when the guard is created, so only a
 * plan that this policy approves is ever guarded. Pass `undefined` and `options.state` to
 * resume a run from `snapshot()`, or `undefined` alone for per-turn mode (`submitPlan(calls,
 * 'turn')`). Throws `PlanError` for a plan or state that does not validate.
 *
 * @example
 * ```ts
 * const compiler = await createPlanCompiler(policy)
 * const guard = createPlanGuard(compiler.compile(plan), { compiler })
 * const decision = await guard.authorize({ tool: 'view_file', args: { file: 'README.md' } })
 * if (decision.allowed) {
 *   guard.complete(decision.stepId, await viewFile(decision.args))
 * } else {
 *   console.error(decision.issue.code, decision.issue.message)
 * }
 * ```
 */
export function createPlanGuard(
  compiled: CompiledPlan | undefined,
  options: PlanGuardOptions,
): PlanGuard {
  const compiler = options.compiler
  const now = options.now ?? Date.now
  const checkDisk = options.checkPathsOnDisk !== false
  const budgets = compiler.policy.policy.budgets
  const scope = compiler.policy.scope
  const restoredState = options.state === undefined ? undefined : readGuardState(options.state)
  const flow = createUntrustedFlowTracker(compiler.policy, restoredState?.flow)
  /** Whether each running step was fed untrusted data (its output will be untrusted). */
  const tainted = new Map<string, boolean>()
  const auditSink = options.audit
  const signatureRequired =
    options.requireSignature === true ||
    compiler.policy.policy.approval.requireSignature ||
    options.signature !== undefined
  if (signatureRequired && options.secret === undefined) {
    throw signatureError('A plan signature is required, but the guard was given no secret.')
  }
  if (compiler.policy.policy.audit.required && auditSink === undefined) {
    const message = 'The policy requires an audit log, but the guard was given no audit sink.'
    throw new PlanError(message, {
      issues: [
        makeIssue('audit_failed', message, 'Pass an audit sink (createFileAuditSink(path)).'),
      ],
    })
  }

  /** Writes one decision; false when the sink failed (the caller fails closed). */
  function audit(event: AuditEvent): boolean {
    if (auditSink === undefined) return true
    try {
      auditSink.write(event)
      return true
    } catch {
      return false
    }
  }

  function auditFailure(): PlanIssue {
    const issue = makeIssue(
      'audit_failed',
      'A decision could not be written to the audit log; the run is stopped.',
      'Fix the audit log (disk space, permissions) and resume the run.',
    )
    // Not through stop(): the sink that failed would be asked to record the stop.
    stopped ??= issue
    return issue
  }

  function checkSignature(candidate: CompiledPlan, signature: string | undefined): void {
    if (!signatureRequired) return
    const check = verifyPlan(candidate, signature, options.secret ?? '')
    if (!check.valid) throw new PlanError(check.issue.message, { issues: [check.issue] })
  }

  let plan: CompiledPlan | undefined
  let mode: 'plan' | 'turn' = 'plan'
  let stepById = new Map<string, CompiledStep>()
  let stepsByTool = new Map<string, CompiledStep[]>()
  let dependents = new Map<string, string[]>()
  /** Remaining unfinished dependencies of each pending step of the current plan. */
  let waiting = new Map<string, number>()
  /** Steps of every plan installed so far, to carry finished work across re-plans and turns. */
  const knownSteps = new Map<string, CompiledStep>()
  const status = new Map<string, StepStatus>()
  const outputs = new Map<string, JsonValue>()
  const ready = new Map<string, ReadyEntry>()
  const readyByKey = new Map<string, string[]>()
  /** The call key each step ran with, to recognise a repeat of a finished call. */
  const ranWith = new Map<string, string>()
  let calls = 0
  const callsPerTool = new Map<string, number>()
  const identicalCalls = new Map<string, number>()
  const seenPlanHashes = new Set<string>()
  const turns = new Map<string, number>()
  const deniedRepeats = new Map<string, number>()
  let denials = 0
  let replans = 0
  let startedAt = now()
  let stopped: PlanIssue | undefined
  /** Steps restored as running: their call started in an earlier process and never ended. */
  const interrupted = new Set<string>()

  function stop(issue: PlanIssue): PlanIssue {
    if (stopped === undefined) {
      stopped = issue
      if (!audit({ type: 'run_stopped', issue })) auditFailure()
    }
    return stopped
  }

  function addReady(step: CompiledStep): void {
    const resolved = resolveReferences(step, outputs)
    if (!resolved.success) {
      ready.set(step.id, { key: undefined, args: undefined, issue: resolved.issue })
      return
    }
    const key = callKey(step.tool, canonicalJson(resolved.args))
    ready.set(step.id, { key, args: freezeJson(resolved.args), issue: undefined })
    const list = readyByKey.get(key)
    if (list === undefined) readyByKey.set(key, [step.id])
    else list.push(step.id)
  }

  function removeReady(stepId: string): void {
    const entry = ready.get(stepId)
    if (entry === undefined) return
    ready.delete(stepId)
    if (entry.key === undefined) return
    const list = readyByKey.get(entry.key)
    if (list === undefined) return
    const index = list.indexOf(stepId)
    if (index >= 0) list.splice(index, 1)
    if (list.length === 0) readyByKey.delete(entry.key)
  }

  function install(next: CompiledPlan, kind: 'plan' | 'turn', restoring = false): void {
    for (const stepId of [...ready.keys()]) removeReady(stepId)
    plan = next
    mode = kind
    stepById = new Map()
    stepsByTool = new Map()
    dependents = new Map()
    waiting = new Map()
    for (const step of next.steps) {
      stepById.set(step.id, step)
      const sameTool = stepsByTool.get(step.tool)
      if (sameTool === undefined) stepsByTool.set(step.tool, [step])
      else sameTool.push(step)
      for (const dependency of step.dependsOn) {
        const list = dependents.get(dependency)
        if (list === undefined) dependents.set(dependency, [step.id])
        else list.push(step.id)
      }
      const previous = knownSteps.get(step.id)
      const previousStatus = status.get(step.id)
      const carried =
        (restoring && previousStatus !== undefined) ||
        (previous !== undefined &&
          (previousStatus === 'done' || previousStatus === 'running') &&
          previous.tool === step.tool &&
          canonicalJson(previous.args) === canonicalJson(step.args))
      if (!carried) {
        status.set(step.id, 'pending')
        outputs.delete(step.id)
        ranWith.delete(step.id)
        flow.forget(step.id)
      }
      knownSteps.set(step.id, step)
    }
    // Text in this plan can only have been copied from untrusted output that exists now.
    if (!restoring) flow.planApproved(next.steps.map((step) => step.id))
    for (const step of next.steps) {
      if (status.get(step.id) !== 'pending') continue
      const remaining = step.dependsOn.filter(
        (dependency) => status.get(dependency) !== 'done',
      ).length
      const blocked = step.dependsOn.some((dependency) => {
        const state = status.get(dependency)
        return state === 'failed' || state === 'skipped'
      })
      if (blocked) status.set(step.id, 'skipped')
      else if (remaining === 0) addReady(step)
      else waiting.set(step.id, remaining)
    }
  }

  function skipDependents(stepId: string): void {
    const stack = [...(dependents.get(stepId) ?? [])]
    while (stack.length > 0) {
      const id = stack.pop() as string
      if (status.get(id) !== 'pending') continue
      status.set(id, 'skipped')
      removeReady(id)
      waiting.delete(id)
      stack.push(...(dependents.get(id) ?? []))
    }
  }

  function stopIssue(): PlanIssue | undefined {
    if (stopped !== undefined) return stopped
    if (budgets.deadlineMs !== undefined && now() - startedAt >= budgets.deadlineMs) {
      return stop(
        makeIssue(
          'deadline_exceeded',
          `The run has passed its deadline of ${budgets.deadlineMs} ms.`,
          'Stop calling tools and report what was done.',
        ),
      )
    }
    return undefined
  }

  /** Explains why a call that matches no ready step is refused. */
  function diagnose(tool: string, args: JsonObject, key: string): PlanIssue {
    const candidates = stepsByTool.get(tool) ?? []
    const readyTools = [
      ...new Set([...ready.keys()].map((id) => stepById.get(id)?.tool ?? '')),
    ].filter(Boolean)
    if (candidates.length === 0) {
      return makeIssue(
        'call_not_in_plan',
        `The approved plan has no call of ${JSON.stringify(tool)}.`,
        readyTools.length === 0
          ? 'No step is ready; submit a new plan if more work is needed.'
          : `Ready now: ${readyTools.join(', ')}.`,
      )
    }
    for (const step of candidates) {
      const state = status.get(step.id)
      if (state === 'done' && ranWith.get(step.id) === key) {
        return makeIssue(
          'step_already_done',
          `Step ${JSON.stringify(step.id)} already ran this call.`,
          'Use its result instead of calling again.',
          step.id,
        )
      }
      if (state === 'running' && ranWith.get(step.id) === key) {
        if (interrupted.has(step.id)) return interruptedCallIssue(step.id, step.tool)
        return makeIssue(
          'step_in_progress',
          `Step ${JSON.stringify(step.id)} is running this call now.`,
          'Wait for its result.',
          step.id,
        )
      }
    }
    for (const step of candidates) {
      const state = status.get(step.id)
      if (state === 'pending' && !ready.has(step.id) && matchesWithReferences(step.args, args)) {
        const unmet = step.dependsOn.filter((dependency) => status.get(dependency) !== 'done')
        return makeIssue(
          'step_not_ready',
          `Step ${JSON.stringify(step.id)} waits for ${unmet.map((id) => JSON.stringify(id)).join(', ')}.`,
          `Run ${unmet.join(', ')} first.`,
          step.id,
        )
      }
      if ((state === 'failed' || state === 'skipped') && matchesWithReferences(step.args, args)) {
        return makeIssue(
          'step_not_ready',
          `Step ${JSON.stringify(step.id)} ${state === 'failed' ? 'failed' : 'was skipped'}; it will not run in this plan.`,
          'Submit a new plan to try again.',
          step.id,
        )
      }
    }
    const readyCandidates = candidates.filter((step) => ready.get(step.id)?.args !== undefined)
    if (readyCandidates.length > 0) {
      const planned = readyCandidates
        .slice(0, 3)
        .map((step) => `${step.id}: ${quote(canonicalJson(ready.get(step.id)?.args))}`)
        .join('; ')
      return makeIssue(
        'arguments_differ',
        `The arguments of this ${JSON.stringify(tool)} call differ from every ready planned call.`,
        `Call ${tool} with exactly the planned arguments: ${planned}.`,
        readyCandidates.length === 1 ? readyCandidates[0]?.id : undefined,
      )
    }
    const waitingStep = candidates.find(
      (step) => status.get(step.id) === 'pending' && !ready.has(step.id),
    )
    if (waitingStep !== undefined) {
      const unmet = waitingStep.dependsOn.filter((dependency) => status.get(dependency) !== 'done')
      return makeIssue(
        'step_not_ready',
        `The planned ${JSON.stringify(tool)} calls are not ready; step ${JSON.stringify(waitingStep.id)} waits for ${unmet.join(', ')}.`,
        `Run ${unmet.join(', ')} first.`,
        waitingStep.id,
      )
    }
    return makeIssue(
      'call_not_in_plan',
      `Every planned call of ${JSON.stringify(tool)} has already run.`,
      readyTools.length === 0
        ? 'Submit a new plan if more work is needed.'
        : `Ready now: ${readyTools.join(', ')}.`,
    )
  }

  /** Why a selected step cannot run this call, or undefined when it can. */
  function checkSelected(step: CompiledStep, tool: string, key: string): PlanIssue | undefined {
    if (step.tool !== tool) {
      return makeIssue(
        'call_not_in_plan',
        `Step ${JSON.stringify(step.id)} calls ${JSON.stringify(step.tool)}, not ${JSON.stringify(tool)}.`,
        `Call ${step.tool} for this step.`,
        step.id,
      )
    }
    const state = status.get(step.id)
    if (state === 'done')
      return makeIssue(
        'step_already_done',
        `Step ${JSON.stringify(step.id)} has already run.`,
        'Use its result instead of calling again.',
        step.id,
      )
    if (state === 'running' && interrupted.has(step.id))
      return interruptedCallIssue(step.id, step.tool)
    if (state === 'running')
      return makeIssue(
        'step_in_progress',
        `Step ${JSON.stringify(step.id)} is running now.`,
        'Wait for its result.',
        step.id,
      )
    if (state === 'failed' || state === 'skipped') {
      return makeIssue(
        'step_not_ready',
        `Step ${JSON.stringify(step.id)} ${state === 'failed' ? 'failed' : 'was skipped'}; it will not run in this plan.`,
        'Submit a new plan to try again.',
        step.id,
      )
    }
    const entry = ready.get(step.id)
    if (entry === undefined) {
      const unmet = step.dependsOn.filter((dependency) => status.get(dependency) !== 'done')
      return makeIssue(
        'step_not_ready',
        `Step ${JSON.stringify(step.id)} waits for ${unmet.map((id) => JSON.stringify(id)).join(', ')}.`,
        `Run ${unmet.join(', ')} first.`,
        step.id,
      )
    }
    if (entry.issue !== undefined) return entry.issue
    if (entry.key !== key) {
      return makeIssue(
        'arguments_differ',
        `The arguments differ from the planned arguments of step ${JSON.stringify(step.id)}.`,
        `Call ${step.tool} with exactly: ${quote(canonicalJson(entry.args))}.`,
        step.id,
      )
    }
    return undefined
  }

  function checkBudgets(step: CompiledStep, key: string): PlanIssue | undefined {
    if (budgets.maxCalls !== undefined && calls >= budgets.maxCalls) {
      return stop(
        makeIssue(
          'budget_exhausted',
          `The run has made its ${budgets.maxCalls} allowed tool calls.`,
          'Stop calling tools and report what was done.',
          step.id,
        ),
      )
    }
    const toolLimit = compiler.policy.tools.get(step.tool)?.maxCalls ?? budgets.maxCallsPerTool
    if (toolLimit !== undefined && (callsPerTool.get(step.tool) ?? 0) >= toolLimit) {
      return makeIssue(
        'budget_exhausted',
        `Tool ${JSON.stringify(step.tool)} has made its ${toolLimit} allowed calls in this run.`,
        'Use another tool or stop.',
        step.id,
      )
    }
    if ((identicalCalls.get(key) ?? 0) >= budgets.maxIdenticalCalls) {
      return makeIssue(
        'repeated_call',
        `This exact ${JSON.stringify(step.tool)} call has already been made ${budgets.maxIdenticalCalls} times in this run.`,
        'Do not repeat the same call; change the approach or stop.',
        step.id,
      )
    }
    return undefined
  }

  /** The same call, made by another step that a crash interrupted (a new turn repeats it). */
  function interruptedCallWith(key: string, stepId: string): PlanIssue | undefined {
    for (const id of interrupted) {
      if (id === stepId || status.get(id) !== 'running' || ranWith.get(id) !== key) continue
      const tool = knownSteps.get(id)?.tool ?? ''
      if (compiler.policy.tools.get(tool)?.idempotent !== true)
        return interruptedCallIssue(id, tool)
    }
    return undefined
  }

  function release(stepId: string): void {
    const step = stepById.get(stepId)
    if (step === undefined || status.get(stepId) !== 'running') return
    status.set(stepId, 'pending')
    tainted.delete(stepId)
    interrupted.delete(stepId)
    if (!audit({ type: 'step_released', stepId })) auditFailure()
    ranWith.delete(stepId)
    addReady(step)
  }

  async function authorize(input: ToolCall): Promise<AuthorizeResult> {
    const { call, issue } = readToolCall(input)
    const result = issue === undefined ? await decide(call) : denied([issue])
    const tool = typeof call?.tool === 'string' ? call.tool : null
    if (result.allowed) {
      const written = audit({
        type: 'call_allowed',
        stepId: result.stepId,
        tool: tool ?? '',
        argsHash: sha256(canonicalJson(result.args)),
      })
      if (written) return result
      // Nothing runs that the log does not show.
      release(result.stepId)
      return denied([auditFailure()])
    }
    let argsHash: string | null = null
    try {
      argsHash = sha256(canonicalJson(call?.args ?? {}))
    } catch {
      argsHash = null
    }
    const stepId = result.issue.stepId ?? (typeof call?.stepId === 'string' ? call.stepId : null)
    if (!audit({ type: 'call_denied', tool, stepId, argsHash, issues: result.issues }))
      auditFailure()
    const halted = countDenial(argsHash === null ? undefined : `call:${tool ?? ''}:${argsHash}`)
    return halted === undefined ? result : denied([...result.issues, halted])
  }

  /**
   * Counts a denial (a call, or a rejected per-turn batch); stops the run when the same one
   * keeps coming back or too many were denied. Denials after a stop are not counted.
   */
  function countDenial(key: string | undefined): PlanIssue | undefined {
    if (stopped !== undefined) return undefined
    denials += 1
    const repeats = key === undefined ? 0 : (deniedRepeats.get(key) ?? 0) + 1
    if (key !== undefined) deniedRepeats.set(key, repeats)
    if (repeats > budgets.maxIdenticalCalls) {
      return stop(
        makeIssue(
          'repeated_call',
          `The same denied request was made ${repeats} times in this run (at most ${budgets.maxIdenticalCalls}).`,
          'Stop repeating a request the policy refuses; report what is blocking the task.',
        ),
      )
    }
    if (denials > budgets.maxDenials) {
      return stop(
        makeIssue(
          'budget_exhausted',
          `${denials} requests were denied in this run (at most ${budgets.maxDenials}).`,
          'Stop proposing calls the policy refuses; report what is blocking the task.',
        ),
      )
    }
    return undefined
  }

  async function decide(call: ToolCall): Promise<AuthorizeResult> {
    // Everything up to the reservation runs synchronously: parallel calls see each other.
    const halt = stopIssue()
    if (halt !== undefined) return denied([halt])
    const tool = typeof call === 'object' && call !== null ? call.tool : undefined
    if (typeof tool !== 'string')
      return denied([
        makeIssue(
          'invalid_arguments',
          'A tool call needs a tool name (a string).',
          'Name a tool of the plan.',
        ),
      ])
    const rawArgs = call.args === undefined || call.args === null ? {} : call.args
    const copied = copyJson(rawArgs)
    if (
      !copied.ok ||
      typeof copied.value !== 'object' ||
      copied.value === null ||
      Array.isArray(copied.value)
    ) {
      return denied([
        makeIssue(
          'invalid_arguments',
          `The arguments must be a JSON object${copied.ok ? '' : `; found ${copied.reason}`}.`,
          'Send plain JSON arguments.',
        ),
      ])
    }
    const args = copied.value
    if (plan === undefined)
      return denied([
        makeIssue(
          'call_not_in_plan',
          'No plan has been approved yet.',
          'Submit a plan before calling tools.',
        ),
      ])
    const key = callKey(tool, canonicalJson(args))
    let selected: CompiledStep | undefined
    const selectedId =
      call.stepId ??
      (mode === 'turn' && typeof call.callId === 'string' && stepById.has(call.callId)
        ? call.callId
        : undefined)
    if (selectedId !== undefined) {
      selected = typeof selectedId === 'string' ? stepById.get(selectedId) : undefined
      if (selected === undefined)
        return denied([
          makeIssue(
            'call_not_in_plan',
            `The approved plan has no step ${JSON.stringify(String(selectedId))}.`,
            'Run only the steps of the approved plan.',
          ),
        ])
      const problem = checkSelected(selected, tool, key)
      if (problem !== undefined) return denied([problem])
    } else {
      const readyId = readyByKey.get(key)?.[0]
      selected = readyId === undefined ? undefined : stepById.get(readyId)
      if (selected === undefined) return denied([diagnose(tool, args, key)])
    }
    const step = selected
    const lost = interruptedCallWith(key, step.id)
    if (lost !== undefined) return denied([lost])
    const budget = checkBudgets(step, key)
    if (budget !== undefined) return denied([budget])
    const argumentIssues = compiler
      .checkArguments(tool, args)
      .map((found) => ({ ...found, stepId: step.id }))
    if (argumentIssues.length > 0) return denied(argumentIssues)
    const taintRules = mode === 'turn' ? compiler.policy.policy.trust.tainted : undefined
    const flowCheck = flow.check(step, args, taintRules === undefined || taintRules.pasteCheck)
    if (flowCheck.issues.length > 0) return denied(flowCheck.issues)
    if (taintRules !== undefined) {
      const taint = checkTaintedCall(compiler, tool, step.id, args, flow.taintState())
      if (taint.issues.length > 0 && call.humanApproved !== true) return denied(taint.issues)
      flow.noteCall(taint.readsSensitive, taint.acts)
    }

    const stepId = step.id
    tainted.set(stepId, flowCheck.tainted)
    status.set(stepId, 'running')
    removeReady(stepId)
    ranWith.set(stepId, key)
    calls += 1
    callsPerTool.set(tool, (callsPerTool.get(tool) ?? 0) + 1)
    // Identical calls count only while nothing else happened in between.
    const repeats = (identicalCalls.get(key) ?? 0) + 1
    identicalCalls.clear()
    identicalCalls.set(key, repeats)

    const specs = compiler.policy.tools.get(tool)?.args
    if (specs !== undefined) normalizeUrlArguments(specs, args)
    if (!checkDisk || specs === undefined || !hasPathArguments(specs))
      return { allowed: true, stepId, args }
    const found = pathArguments(specs, args)
    const results = await Promise.all(
      found.map((entry) => checkPathOnDisk(entry.value, scope, entry.access)),
    )
    const issues: PlanIssue[] = []
    results.forEach((result, index) => {
      const entry = found[index]
      if (entry === undefined) return
      if (!result.allowed) {
        issues.push(
          makeIssue(result.issue.code, result.issue.message, result.issue.hint, stepId, entry.path),
        )
        return
      }
      // The tool gets the real path that was checked, never a path to resolve again elsewhere.
      let target: JsonValue = args
      for (const segment of entry.path.slice(0, -1))
        target = (target as Record<string | number, JsonValue>)[segment] as JsonValue
      defineValue(
        target as object,
        entry.path[entry.path.length - 1] as string | number,
        result.resolved,
      )
    })
    if (issues.length > 0) {
      release(stepId)
      return denied(issues)
    }
    if (taintRules !== undefined && call.humanApproved !== true) {
      // Again on the real paths: a link inside an allowed folder may lead elsewhere.
      const onDisk = await checkTaintedOnDisk(compiler, tool, stepId, args, flow.taintState())
      if (onDisk.issues.length > 0) {
        release(stepId)
        return denied(onDisk.issues)
      }
      flow.noteCall(onDisk.readsSensitive, onDisk.acts)
    }
    return { allowed: true, stepId, args }
  }

  function complete(stepId: string, output: unknown): void {
    if (status.get(stepId) !== 'running') return
    status.set(stepId, 'done')
    const json = outputToJson(output, MAX_OUTPUT_BYTES)
    if (json.ok) outputs.set(stepId, freezeJson(json.value))
    else outputs.delete(stepId)
    const finished = knownSteps.get(stepId)
    const trust =
      finished === undefined
        ? 'untrusted'
        : flow.record(finished, json.ok ? json.value : undefined, tainted.get(stepId) ?? true)
    tainted.delete(stepId)
    // A successful write changes what the same call will do: repeats count from zero again.
    if (finished !== undefined && writesPaths(compiler.policy.tools.get(finished.tool)?.args)) {
      identicalCalls.clear()
      turns.clear()
    }
    let outputHash: string | null = null
    if (json.ok) {
      try {
        outputHash = sha256(canonicalJson(json.value))
      } catch {
        outputHash = null
      }
    }
    if (!audit({ type: 'step_completed', stepId, outputHash, trust })) auditFailure()
    if (!stepById.has(stepId)) return
    for (const dependent of dependents.get(stepId) ?? []) {
      if (status.get(dependent) !== 'pending') continue
      const remaining = (waiting.get(dependent) ?? 1) - 1
      if (remaining > 0) {
        waiting.set(dependent, remaining)
        continue
      }
      waiting.delete(dependent)
      const step = stepById.get(dependent)
      if (step !== undefined) addReady(step)
    }
  }

  function fail(stepId: string, error: unknown): void {
    const state = status.get(stepId)
    if (state !== 'running' && state !== 'pending') return
    status.set(stepId, 'failed')
    // An error of a tool that ran is output too: its text carries the tool's label.
    const failed = state === 'running' ? knownSteps.get(stepId) : undefined
    if (failed !== undefined) flow.record(failed, describeError(error), tainted.get(stepId) ?? true)
    tainted.delete(stepId)
    if (!audit({ type: 'step_failed', stepId, error: describeError(error) })) auditFailure()
    removeReady(stepId)
    waiting.delete(stepId)
    skipDependents(stepId)
  }

  function submitPlan(
    next: unknown,
    kind: SubmitKind,
    submitOptions?: SubmitOptions,
  ): SubmitResult {
    const result = submitDecision(next, kind, submitOptions?.signature)
    const written = result.success
      ? audit({
          type: 'plan_approved',
          kind: kind === 'turn' ? 'turn' : 'replan',
          planHash: result.plan.hash,
          steps: result.plan.steps.length,
          signed: signatureRequired,
        })
      : audit({ type: 'plan_rejected', kind, issues: result.issues })
    if (!written) auditFailure()
    return result
  }

  function submitDecision(
    next: unknown,
    kind: SubmitKind,
    signature: string | undefined,
  ): SubmitResult {
    const halt = stopIssue()
    if (halt !== undefined) return { success: false, issues: [halt] }
    const counted = kind === 'replan' && plan !== undefined
    if (counted) {
      replans += 1
      if (replans > budgets.maxReplans) {
        const issue = stop(
          makeIssue(
            'replan_loop',
            `More than ${budgets.maxReplans} re-plans in one run.`,
            'Stop re-planning and report what is blocking the task.',
          ),
        )
        return { success: false, issues: [issue] }
      }
    }
    const result: PlanValidationResult = compiler.validate(next)
    if (!result.success) {
      if (kind !== 'turn') return result
      const halted = countDenial(rejectedTurnKey(next))
      return halted === undefined ? result : { success: false, issues: [...result.issues, halted] }
    }
    if (signatureRequired) {
      const check = verifyPlan(result.plan, signature, options.secret ?? '')
      if (!check.valid) return { success: false, issues: [check.issue] }
    }
    const hash = result.plan.hash
    if (kind === 'replan' && seenPlanHashes.has(hash)) {
      const issue = stop(
        makeIssue(
          'replan_loop',
          'This plan was already submitted in this run; re-submitting it is a loop.',
          'Change the plan or stop and report what is blocking the task.',
        ),
      )
      return { success: false, issues: [issue] }
    }
    if (kind === 'turn') {
      const signature = turnSignature(result.plan)
      const count = (turns.get(signature) ?? 0) + 1
      turns.clear()
      if (count > budgets.maxIdenticalCalls) {
        const issue = stop(
          makeIssue(
            'repeated_call',
            `The same tool calls were requested ${count} times in this run (at most ${budgets.maxIdenticalCalls}).`,
            'Do not repeat the same calls; change the approach or stop.',
          ),
        )
        return { success: false, issues: [issue] }
      }
      turns.set(signature, count)
    }
    for (const step of result.plan.steps) {
      const previous = knownSteps.get(step.id)
      if (
        status.get(step.id) === 'running' &&
        (previous?.tool !== step.tool || canonicalJson(previous.args) !== canonicalJson(step.args))
      ) {
        return {
          success: false,
          issues: [
            makeIssue(
              'step_in_progress',
              `Step ${JSON.stringify(step.id)} is still running with other arguments.`,
              'Give the new step another id, or wait for the running one.',
              step.id,
            ),
          ],
        }
      }
    }
    seenPlanHashes.add(hash)
    install(result.plan, kind === 'turn' ? 'turn' : 'plan')
    return result
  }

  function resolveArgs(stepId: string): ResolveArgsResult {
    const step = stepById.get(stepId)
    if (step === undefined)
      return {
        success: false,
        issue: makeIssue(
          'call_not_in_plan',
          `The approved plan has no step ${JSON.stringify(stepId)}.`,
        ),
      }
    const entry = ready.get(stepId)
    if (entry === undefined) {
      const problem = checkSelected(step, step.tool, '')
      return {
        success: false,
        issue:
          problem ??
          makeIssue(
            'step_not_ready',
            `Step ${JSON.stringify(stepId)} is not ready.`,
            undefined,
            stepId,
          ),
      }
    }
    if (entry.issue !== undefined || entry.args === undefined) {
      return {
        success: false,
        issue:
          entry.issue ??
          makeIssue('invalid_reference', 'The references cannot be resolved.', undefined, stepId),
      }
    }
    const copied = copyJson(entry.args)
    return copied.ok
      ? { success: true, args: copied.value as JsonObject }
      : {
          success: false,
          issue: makeIssue(
            'invalid_arguments',
            'The planned arguments are not JSON.',
            undefined,
            stepId,
          ),
        }
  }

  function snapshot(): PlanGuardState {
    return {
      version: 1,
      plan: plan ?? null,
      status: Object.fromEntries(status),
      outputs: Object.fromEntries(outputs),
      calls,
      callsPerTool: Object.fromEntries(callsPerTool),
      identicalCalls: Object.fromEntries(identicalCalls),
      seenPlanHashes: [...seenPlanHashes],
      replans,
      startedAt,
      stopped: stopped ?? null,
      mode,
      turns: Object.fromEntries(turns),
      denials,
      deniedRepeats: Object.fromEntries(deniedRepeats),
      flow: flow.toJSON(),
    }
  }

  if (restoredState !== undefined) {
    const state = restoredState
    if (state.plan !== null) checkSignature(state.plan, options.signature)
    const restored = state.plan === null ? undefined : revalidate(compiler, state.plan)
    if (compiled !== undefined && restored !== undefined && compiled.hash !== restored.plan.hash) {
      throw new PlanError(
        'The plan passed to createPlanGuard differs from the plan in the restored state.',
        { code: 'plan_tampered' },
      )
    }
    for (const [id, value] of state.status) status.set(id, value)
    for (const [id, value] of state.outputs) outputs.set(id, freezeJson(value))
    calls = state.calls
    for (const [tool, count] of state.callsPerTool) callsPerTool.set(tool, count)
    for (const [key, count] of state.identicalCalls) identicalCalls.set(key, count)
    for (const hash of state.seenPlanHashes) seenPlanHashes.add(hash)
    for (const [signature, count] of state.turns) turns.set(signature, count)
    denials = state.denials
    for (const [key, count] of state.deniedRepeats) deniedRepeats.set(key, count)
    replans = state.replans
    startedAt = state.startedAt
    stopped = state.stopped ?? undefined
    if (restored !== undefined) {
      install(restored.plan, state.mode, true)
      for (const step of restored.plan.steps) {
        const state = status.get(step.id)
        if (state !== 'done' && state !== 'running') continue
        const resolved = resolveReferences(step, outputs)
        if (resolved.success) ranWith.set(step.id, callKey(step.tool, canonicalJson(resolved.args)))
        if (state === 'running') interrupted.add(step.id)
      }
      // At-least-once for idempotent tools: their interrupted calls run again (and count again).
      for (const stepId of interrupted)
        if (compiler.policy.tools.get(stepById.get(stepId)?.tool ?? '')?.idempotent === true)
          release(stepId)
    }
  } else if (compiled !== undefined) {
    checkSignature(compiled, options.signature)
    const approved = revalidate(compiler, compiled)
    for (const hash of approved.hashes) seenPlanHashes.add(hash)
    install(approved.plan, 'plan')
  }
  if (
    plan !== undefined &&
    !audit({
      type: 'plan_approved',
      kind: restoredState === undefined ? 'plan' : 'restore',
      planHash: plan.hash,
      steps: plan.steps.length,
      signed: signatureRequired,
    })
  ) {
    const message = 'The plan approval could not be written to the audit log.'
    throw new PlanError(message, {
      issues: [makeIssue('audit_failed', message, 'Fix the audit log and try again.')],
    })
  }

  return {
    policy: compiler.policy.policy,
    get plan() {
      return plan
    },
    authorize,
    complete,
    fail,
    release,
    resolveArgs,
    readySteps() {
      return [...ready.keys()]
        .map((id) => stepById.get(id) as CompiledStep)
        .sort((left, right) => left.index - right.index)
    },
    readyTools() {
      const tools = [...ready.keys()].map((id) => stepById.get(id)?.tool as string)
      // An interrupted call's tool stays visible, so a repeat is told why it does not run.
      for (const id of interrupted)
        if (status.get(id) === 'running') tools.push(knownSteps.get(id)?.tool ?? '')
      return [...new Set(tools)].filter(Boolean)
    },
    isComplete() {
      if (plan === undefined) return false
      return plan.steps.every((step) => {
        const state = status.get(step.id)
        return state === 'done' || state === 'failed' || state === 'skipped'
      })
    },
    stopReason() {
      return stopIssue()
    },
    interruptedCalls(): readonly InterruptedCall[] {
      return [...interrupted]
        .filter((stepId) => status.get(stepId) === 'running')
        .map((stepId) => {
          const tool = knownSteps.get(stepId)?.tool ?? ''
          return { stepId, tool, issue: interruptedCallIssue(stepId, tool) }
        })
    },
    submitPlan,
    snapshot,
  }
}

/** What a rejected per-turn batch asked for (tools and arguments, not ids), to spot repeats. */
function rejectedTurnKey(plan: unknown): string | undefined {
  try {
    const steps: unknown = Array.isArray(plan)
      ? plan
      : typeof plan === 'object' && plan !== null
        ? (plan as { steps?: unknown }).steps
        : undefined
    if (!Array.isArray(steps)) return undefined
    const calls = steps.map((step: unknown) =>
      typeof step === 'object' && step !== null
        ? [(step as { tool?: unknown }).tool ?? null, (step as { args?: unknown }).args ?? null]
        : [step],
    )
    return `turn:${sha256(canonicalJson(calls))}`
  } catch {
    return undefined
  }
}
