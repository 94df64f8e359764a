import { isRecord, PlanError } from '@plan/shell/common'
import { planSteps } from '../compile/build-compiled-plan.js'
import { UntrustedFlowTracker } from '../flow/create-untrusted-flow-tracker.js'
import { verifyPlan } from '../sign/verify-plan.js'
import { traceGuardEvent } from '../telemetry/decision-spans.js'
import type { CompiledPlan } from '../types/compiled-plan.js'
import type { PlanGuard, PlanGuardOptions, ResolveArgsResult } from '../types/plan-guard.js'
import type { UntrustedFlowState } from '../types/untrusted-flow.js'
import { commandParser } from '../util/command-parser.js'
import { copyJson } from '../util/json-copy.js'
import { runIssue } from '../util/run-issue.js'
import { StepValues } from '../util/step-values.js'
import { notReady, releaseStep } from './authorize-call.js'
import { checkSelectedStep } from './diagnose-call.js'
import {
  approvalNotAuditedError,
  auditRequiredError,
  createGuardAudit,
  stopForAuditFailure,
} from './guard-audit.js'
import { GuardHandle } from './guard-handle.js'
import { GuardJournal } from './guard-journal.js'
import type { GuardParts } from './guard-parts.js'
import { restoreGuard } from './guard-snapshot.js'
import { type CheckedGuardState, readGuardState } from './read-guard-state.js'
import { revalidatePlan } from './revalidate-plan.js'
import { RunBudgets } from './run-budgets.js'
import { RunState } from './run-state.js'

function signatureError(message: string): PlanError {
  return new PlanError(message, {
    issues: [runIssue('signature_invalid', message, 'Pass the secret the plans are signed with.')],
  })
}

/** The parts of a new guard, with nothing installed yet. */
function createParts(
  options: PlanGuardOptions,
  flowState: UntrustedFlowState | undefined,
): GuardParts {
  const { compiler } = options
  const policy = compiler.policy.policy
  const signatureRequired =
    options.requireSignature === true ||
    policy.approval.requireSignature ||
    options.signature !== undefined
  if (signatureRequired && options.secret === undefined)
    throw signatureError('A plan signature is required, but the guard was given no secret.')
  if (policy.audit.required && options.audit === undefined) throw auditRequiredError()
  const audit = createGuardAudit(options.audit)
  const record: GuardParts['record'] = (event) => {
    traceGuardEvent(event)
    if (!audit.write(event)) stopForAuditFailure(budgets)
  }
  const budgets = new RunBudgets(
    policy.budgets,
    (tool) => compiler.policy.tools.get(tool)?.maxCalls ?? policy.budgets.maxCallsPerTool,
    options.now ?? Date.now,
    (issue) => record({ type: 'run_stopped', issue }),
  )
  // Every plan the run installs is validated by `compiler` first (revalidatePlan, submitPlan).
  const run = new RunState((step, args) => {
    const issues = compiler.checkArguments(step.tool, args)
    return issues.length === 0 ? issues : issues.map((issue) => ({ ...issue, stepId: step.id }))
  }, true)
  const flow = new UntrustedFlowTracker(compiler.policy, flowState, commandParser(compiler))
  for (const [file, sources] of Object.entries(options.labelledFiles ?? {}))
    if (Array.isArray(sources) && sources.every((source) => typeof source === 'string'))
      flow.labelFile(file, [...(flow.labelledFiles().get(file) ?? []), ...sources])
  return {
    compiler,
    run,
    budgets,
    flow,
    audit,
    journal: new GuardJournal(run, budgets, flow),
    tainted: new StepValues<boolean>(),
    checkDisk: options.checkPathsOnDisk !== false,
    signatureRequired,
    secret: options.secret ?? '',
    record,
  }
}

function checkSignature(parts: GuardParts, plan: CompiledPlan, signature: string | undefined) {
  if (!parts.signatureRequired) return
  const check = verifyPlan(plan, signature, parts.secret)
  if (!check.valid) throw new PlanError(check.issue.message, { issues: [check.issue] })
}

/** Installs the first plan, or the restored state, and audits its approval. */
function start(
  parts: GuardParts,
  compiled: CompiledPlan | undefined,
  state: CheckedGuardState | undefined,
  options: PlanGuardOptions,
) {
  const { run, budgets, compiler } = parts
  if (state !== undefined) {
    if (state.plan !== null) checkSignature(parts, state.plan, options.signature)
    restoreGuard(state, compiler, compiled?.hash, {
      run,
      budgets,
      flow: parts.flow,
      release: (stepId) => releaseStep(parts, stepId),
    })
  } else if (compiled !== undefined) {
    checkSignature(parts, compiled, options.signature)
    const approved = revalidatePlan(compiler, compiled)
    budgets.seenPlanHashes.add(approved.hash)
    run.install(approved, 'plan', false, (stepId) => parts.flow.forget(stepId))
    parts.flow.place(run.steps.ids, run.steps.positions)
    parts.flow.planApproved(planSteps(approved).ids)
  }
  const plan = run.plan
  if (plan === undefined) return
  parts.tainted.place(run.steps.ids, run.steps.positions)
  const event = {
    type: 'plan_approved',
    kind: state === undefined ? 'plan' : 'restore',
    planHash: plan.hash,
    steps: planSteps(plan).size,
    signed: parts.signatureRequired,
  } as const
  traceGuardEvent(event)
  if (!parts.audit.write(event)) throw approvalNotAuditedError()
}

/** The arguments a ready step must be called with, or why it cannot be called now. */
function resolveArgs(parts: GuardParts, stepId: string): ResolveArgsResult {
  const { run } = parts
  const step = run.step(stepId)
  if (step === undefined)
    return {
      success: false,
      issue: runIssue(
        'call_not_in_plan',
        `The approved plan has no step ${JSON.stringify(stepId)}.`,
      ),
    }
  const entry = run.ready.get(stepId)
  if (entry === undefined) {
    return {
      success: false,
      issue: checkSelectedStep(run, step, step.tool, '') ?? notReady(stepId),
    }
  }
  if (entry.issue !== undefined || entry.args === undefined) {
    const issue =
      entry.issue ??
      runIssue('invalid_reference', 'The references cannot be resolved.', undefined, stepId)
    return { success: false, issue }
  }
  const copied = copyJson(entry.args)
  // A copy of an object is an object: the check only narrows the type.
  if (copied.ok && isRecord(copied.value)) return { success: true, args: copied.value }
  const issue = runIssue(
    'invalid_arguments',
    'The planned arguments are not JSON.',
    undefined,
    stepId,
  )
  return { success: false, issue }
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
  const state = options.state === undefined ? undefined : readGuardState(options.state)
  const parts = createParts(options, state?.flow)
  start(parts, compiled, state, options)
  return new GuardHandle(parts, (stepId) => resolveArgs(parts, stepId))
}
