import { canonicalJson, defineValue, hashJsonOrNull, sha256Hex } from '@plan/json'
import { createIssue, isRecord, itemAt, type PlanIssue } from '@plan/shell/common'
import { checkPathOnDisk } from '../checks/path-on-disk.js'
import type { TaintedPolicy } from '../schema/tainted-schema.js'
import { checkTaintedCall } from '../taint/check-tainted-call.js'
import { realRoots } from '../taint/real-roots.js'
import type { CompiledStep } from '../types/compiled-plan.js'
import type { JsonObject, JsonValue } from '../types/json-value.js'
import type { AuthorizeResult, ToolCall } from '../types/plan-guard.js'
import type { TaintState } from '../types/taint-state.js'
import { copyJson } from '../util/json-copy.js'
import { runIssue } from '../util/run-issue.js'
import { toolFacts } from '../util/tool-facts.js'
import { callKey } from './call-key.js'
import { checkCommandsInFlight, commandKind, noteCommandStarted } from './command-writes.js'
import { checkSelectedStep, diagnoseCall } from './diagnose-call.js'
import { stopForAuditFailure } from './guard-audit.js'
import type { GuardParts } from './guard-parts.js'
import { interruptedCallIssue } from './interrupted-call.js'
import { checkRunsLabelledFiles, labelWrittenFiles } from './labelled-files.js'
import { normalizeUrlArguments } from './normalize-url-arguments.js'
import { pathArguments } from './path-arguments.js'
import { readToolCall } from './read-tool-call.js'
import { checkTaintedCodeWrites } from './tainted-code-writes.js'

/** A denial with its first issue. */
export function denied(
  issues: readonly PlanIssue[],
): Extract<AuthorizeResult, { readonly allowed: false }> {
  return { allowed: false, issue: itemAt(issues, 0), issues }
}

/** Returns a running step to ready (a retry); the call it made still counts. */
export function releaseStep(parts: GuardParts, stepId: string): void {
  if (!parts.run.release(stepId)) return
  parts.tainted.delete(stepId)
  parts.flow.commands.ended(stepId)
  parts.record({ type: 'step_released', stepId })
}

/** The call's tool and arguments as a plain JSON object, or why they are not. */
function readArguments(call: ToolCall): { tool: string; args: JsonObject } | PlanIssue {
  const tool = call.tool
  if (typeof tool !== 'string')
    return runIssue(
      'invalid_arguments',
      'A tool call needs a tool name (a string).',
      'Name a tool of the plan.',
    )
  const copied = copyJson(call.args === undefined || call.args === null ? {} : call.args)
  if (!copied.ok || !isRecord(copied.value)) {
    return runIssue(
      'invalid_arguments',
      `The arguments must be a JSON object${copied.ok ? '' : `; found ${copied.reason}`}.`,
      'Send plain JSON arguments.',
    )
  }
  return { tool, args: copied.value }
}

/** The ready step this call runs as (named by the call, or matched by its key), or why none. */
function selectStep(
  parts: GuardParts,
  call: ToolCall,
  tool: string,
  args: JsonObject,
  key: string,
): CompiledStep | PlanIssue {
  const { run } = parts
  const selectedId =
    call.stepId ??
    (run.mode === 'turn' && typeof call.callId === 'string' && run.step(call.callId) !== undefined
      ? call.callId
      : undefined)
  if (selectedId === undefined) return run.readyStepFor(key) ?? diagnoseCall(run, tool, args, key)
  const selected = run.step(selectedId)
  if (selected === undefined)
    return runIssue(
      'call_not_in_plan',
      `The approved plan has no step ${JSON.stringify(String(selectedId))}.`,
      'Run only the steps of the approved plan.',
    )
  return checkSelectedStep(run, selected, tool, key) ?? selected
}

/** The issue of a call to a step whose dependencies have not all finished. */
export function notReady(stepId: string): PlanIssue {
  return runIssue(
    'step_not_ready',
    `Step ${JSON.stringify(stepId)} is not ready.`,
    undefined,
    stepId,
  )
}

/** The same call, made by another step that a crash interrupted (a new turn repeats it). */
function interruptedCallWith(parts: GuardParts, key: string, stepId: string) {
  const { run } = parts
  if (run.interrupted.size === 0) return undefined
  for (const id of run.interrupted) {
    if (id === stepId || run.status.get(id) !== 'running' || run.ranKey(id) !== key) continue
    const tool = run.knownStep(id)?.tool ?? ''
    if (parts.compiler.policy.tools.get(tool)?.idempotent !== true)
      return interruptedCallIssue(id, tool)
  }
  return undefined
}

/** Checks a call and starts its step, synchronously so that parallel calls see each other. */
function reserve(
  parts: GuardParts,
  call: ToolCall,
): { step: CompiledStep; args: JsonObject } | AuthorizeResult {
  const { run, budgets, compiler, flow } = parts
  const halt = budgets.stopReason()
  if (halt !== undefined) return denied([halt])
  const read = readArguments(call)
  if ('code' in read) return denied([read])
  const { tool, args } = read
  if (run.plan === undefined)
    return denied([
      runIssue(
        'call_not_in_plan',
        'No plan has been approved yet.',
        'Submit a plan before calling tools.',
      ),
    ])
  const key = callKey(tool, canonicalJson(args))
  const step = selectStep(parts, call, tool, args, key)
  if ('code' in step) return denied([step])
  const problem =
    interruptedCallWith(parts, key, step.id) ?? budgets.checkCall(step.tool, key, step.id)
  if (problem !== undefined) return denied([problem])
  // The step's arguments were checked when it became ready, and this call's equal them.
  const argumentIssues = run.ready.get(step.id)?.argumentIssues
  if (argumentIssues === undefined || argumentIssues.length > 0)
    return denied(argumentIssues?.map((found) => ({ ...found })) ?? [notReady(step.id)])
  const taintRules = run.mode === 'turn' ? compiler.policy.policy.trust.tainted : undefined
  const flowCheck = flow.check(step, args, taintRules === undefined || taintRules.pasteCheck)
  if (flowCheck.issues.length > 0) return denied(flowCheck.issues)
  const labelledRuns = checkRunsLabelledFiles(parts, step, args)
  if (labelledRuns.length > 0) return denied(labelledRuns)
  const command = commandKind(parts, step, args)
  const inFlight = checkCommandsInFlight(parts, step, command, taintRules !== undefined)
  if (inFlight.length > 0 && (taintRules === undefined || call.humanApproved !== true))
    return denied(inFlight)
  if (taintRules !== undefined) {
    const state = flow.taintState()
    const taint = checkTaintedCall(compiler, tool, step.id, args, state)
    const issues =
      taint.issues.length > 0 ? taint.issues : taintedCode(parts, taintRules, state, step, args)
    if (issues.length > 0 && call.humanApproved !== true) return denied(issues)
    flow.noteCall(taint.readsSensitive, taint.acts)
  }
  parts.tainted.set(step.id, flowCheck.tainted)
  labelWrittenFiles(parts, step, args, compiler.policy.scope.roots)
  noteCommandStarted(parts, step, command)
  run.start(step.id, key)
  budgets.countCall(tool, key)
  return { step, args }
}

/** In allowlist mode, once the run is tainted, a write of code is a sink too. */
function taintedCode(
  parts: GuardParts,
  rules: TaintedPolicy,
  state: TaintState,
  step: CompiledStep,
  args: JsonObject,
): PlanIssue[] {
  if (rules.mode !== 'allowlist' || !state.untrusted) return []
  if (!toolFacts(parts.compiler.policy.tools.get(step.tool)).writes) return []
  return checkTaintedCodeWrites(parts, step, args)
}

/** Checks path arguments on disk and replaces each by the real path that was checked. */
async function checkOnDisk(
  parts: GuardParts,
  stepId: string,
  args: JsonObject,
  specs: Parameters<typeof pathArguments>[0],
): Promise<PlanIssue[]> {
  const found = pathArguments(specs, args)
  const results = await Promise.all(
    found.map((entry) => checkPathOnDisk(entry.value, parts.compiler.policy.scope, entry.access)),
  )
  const issues: PlanIssue[] = []
  results.forEach((result, index) => {
    const entry = found[index]
    if (entry === undefined) return
    if (!result.allowed) {
      const { code, message, hint } = result.issue
      issues.push(createIssue(code, message, [...entry.path], hint, stepId))
      return
    }
    // The tool gets the real path that was checked, never a path to resolve again elsewhere.
    let target: JsonValue = args
    for (const segment of entry.path.slice(0, -1))
      target = (target as Record<string | number, JsonValue>)[segment] as JsonValue
    defineValue(target as object, itemAt(entry.path, entry.path.length - 1), result.resolved)
  })
  return issues
}

/** Decides a read call; async only for paths checked on disk, and only after the reservation. */
function decide(parts: GuardParts, call: ToolCall): AuthorizeResult | Promise<AuthorizeResult> {
  const reserved = reserve(parts, call)
  if ('allowed' in reserved) return reserved
  const { step, args } = reserved
  const facts = toolFacts(parts.compiler.policy.tools.get(step.tool))
  const { specs } = facts
  if (facts.urls && specs !== undefined) normalizeUrlArguments(specs, args)
  if (!parts.checkDisk || specs === undefined || !facts.paths)
    return { allowed: true, stepId: step.id, args }
  return decideOnDisk(parts, call, step, args, specs, facts.writes)
}

/** The rest of {@link decide} for a call with path arguments: the checks on disk. */
async function decideOnDisk(
  parts: GuardParts,
  call: ToolCall,
  step: CompiledStep,
  args: JsonObject,
  specs: Parameters<typeof pathArguments>[0],
  writes: boolean,
): Promise<AuthorizeResult> {
  const { compiler, flow } = parts
  const stepId = step.id
  const issues = await checkOnDisk(parts, stepId, args, specs)
  if (issues.length > 0) {
    releaseStep(parts, stepId)
    return denied(issues)
  }
  const taintRules = parts.run.mode === 'turn' ? compiler.policy.policy.trust.tainted : undefined
  // The run's taint as this call found it, when the call is checked against it.
  const state =
    taintRules !== undefined && call.humanApproved !== true ? flow.taintState() : undefined
  // A tool that writes no path labels none, and without a taint check needs no real roots.
  if (!writes && state === undefined) return { allowed: true, stepId, args }
  const roots = await realRoots(compiler)
  // The real paths are labelled too: a link inside the workspace may name a file elsewhere.
  if (writes) labelWrittenFiles(parts, step, args, roots)
  if (state !== undefined) {
    // On real paths too: a link in an allowed folder may lead out, or to a sensitive file (a read).
    const onDisk = checkTaintedCall(compiler, step.tool, stepId, args, state, roots)
    if (onDisk.issues.length > 0) {
      releaseStep(parts, stepId)
      return denied(onDisk.issues)
    }
    flow.noteCall(onDisk.readsSensitive, onDisk.acts)
  }
  return { allowed: true, stepId, args }
}

/** `PlanGuard.authorize`: reads the call once, decides, then audits it (see {@link conclude}). */
export function authorizeCall(parts: GuardParts, input: ToolCall): Promise<AuthorizeResult> {
  try {
    const { call, issue } = readToolCall(input)
    const decided = issue === undefined ? decide(parts, call) : denied([issue])
    // A decision made synchronously is answered without an extra turn of the event loop.
    if (decided instanceof Promise) return decided.then((result) => conclude(parts, call, result))
    return Promise.resolve(conclude(parts, call, decided))
  } catch (error) {
    return Promise.reject(error)
  }
}

/** Audits a decision and counts a denial; an allowed call the log cannot show is denied. */
function conclude(parts: GuardParts, call: ToolCall, result: AuthorizeResult): AuthorizeResult {
  const tool = typeof call?.tool === 'string' ? call.tool : null
  const { audit, budgets } = parts
  if (result.allowed) {
    if (!audit.enabled) return result
    const event = {
      stepId: result.stepId,
      tool: tool ?? '',
      argsHash: sha256Hex(canonicalJson(result.args)),
    }
    if (audit.write({ type: 'call_allowed', ...event })) return result
    releaseStep(parts, result.stepId)
    return denied([stopForAuditFailure(budgets)])
  }
  const argsHash = hashJsonOrNull(call?.args ?? {})
  const stepId = result.issue.stepId ?? (typeof call?.stepId === 'string' ? call.stepId : null)
  parts.record({ type: 'call_denied', tool, stepId, argsHash, issues: result.issues })
  const key = argsHash === null ? undefined : `call:${tool ?? ''}:${argsHash}`
  const askedId = askedCallId(parts, call, result.issues)
  // A refusal put to a human comes again each time its paused node is replayed: counted once.
  if (askedId !== undefined && key !== undefined && parts.run.asked.get(askedId) === key)
    return result
  const halted = budgets.countDenial(key)
  if (halted !== undefined) return denied([...result.issues, halted])
  if (askedId !== undefined && key !== undefined) {
    const tooMany = questionLimit(parts)
    if (tooMany !== undefined) return denied([...result.issues, tooMany])
    parts.run.asked.set(askedId, key)
  }
  return result
}

/** Counts a question put to a human; past `maxQuestions`, the run stops instead of asking. */
function questionLimit(parts: GuardParts): PlanIssue | undefined {
  const limit = parts.compiler.policy.policy.trust.tainted?.maxQuestions ?? 3
  const asked = parts.flow.noteQuestion()
  if (asked <= limit) return undefined
  return parts.budgets.stop(
    runIssue(
      'budget_exhausted',
      `This run has already put ${limit} refusals to a human; it stops here rather than ask again.`,
      'Finish with what you have and tell the user which steps are left for them.',
    ),
  )
}

/**
 * The call id of a refusal the caller puts to a human (`asksHuman`): an interrupted call, or a
 * tainted run under `onRefuse: 'ask'`. A human is asked only what the call shows: `tainted_run`
 * shows all it would do in its arguments; `untrusted_flow` (running files written from untrusted
 * data, a URL after a sensitive read) does not, and one such issue beside it makes the call final.
 * Per-turn mode only: each model turn installs a new plan, forgetting the ids; a plan lasting many
 * turns would let a model repeat a refused call under the same id without its count.
 */
function askedCallId(
  parts: GuardParts,
  call: ToolCall,
  issues: readonly PlanIssue[],
): string | undefined {
  if (call?.asksHuman !== true || call.callId === undefined || issues.length === 0) return undefined
  if (parts.run.mode !== 'turn') return undefined
  const onRefuse = parts.compiler.policy.policy.trust.tainted?.onRefuse
  const askable =
    issues.every((issue) => issue.code === 'interrupted_call') ||
    (onRefuse === 'ask' && issues.every((issue) => issue.code === 'tainted_run'))
  return askable ? call.callId : undefined
}
