import { canonicalJson } from '@plan/json'
import { validateUnrecorded } from '../compile/validate-unrecorded.js'
import { verifyPlan } from '../sign/verify-plan.js'
import { traceGuardEvent } from '../telemetry/decision-spans.js'
import type { AuditEvent } from '../types/audit-event.js'
import type { PlanValidationResult } from '../types/plan-compiler.js'
import type { SubmitKind, SubmitResult } from '../types/plan-guard.js'
import { runIssue } from '../util/run-issue.js'
import { rejectedTurnKey, turnSignature } from './call-key.js'
import type { GuardParts } from './guard-parts.js'
import { labelWrittenFiles } from './labelled-files.js'

/** The issue of a new plan that reuses the id of a step still running another call. */
function stepInProgress(parts: GuardParts, plan: SubmitResult & { success: true }) {
  const { run } = parts
  for (const step of plan.plan.steps) {
    if (run.status.get(step.id) !== 'running') continue
    const previous = run.knownStep(step.id)
    if (previous?.tool !== step.tool || canonicalJson(previous.args) !== canonicalJson(step.args)) {
      return runIssue(
        'step_in_progress',
        `Step ${JSON.stringify(step.id)} is still running with other arguments.`,
        'Give the new step another id, or wait for the running one.',
        step.id,
      )
    }
  }
  return undefined
}

/** Compiles a submitted plan and checks it against the run (budgets, loops, signature). */
function check(
  parts: GuardParts,
  next: unknown,
  kind: SubmitKind,
  signature: string | undefined,
): SubmitResult {
  const { budgets, compiler } = parts
  const halt = budgets.stopReason()
  if (halt !== undefined) return { success: false, issues: [halt] }
  if (kind === 'replan' && parts.run.plan !== undefined) {
    const loop = budgets.countReplan()
    if (loop !== undefined) return { success: false, issues: [loop] }
  }
  // A turn's plan lives for one turn: it is not recorded as approved (see validateUnrecorded).
  const result: PlanValidationResult =
    kind === 'turn' ? validateUnrecorded(compiler, next) : compiler.validate(next)
  if (!result.success) {
    if (kind !== 'turn') return result
    const halted = budgets.countDenial(rejectedTurnKey(next))
    return halted === undefined ? result : { success: false, issues: [...result.issues, halted] }
  }
  if (parts.signatureRequired) {
    const verified = verifyPlan(result.plan, signature, parts.secret)
    if (!verified.valid) return { success: false, issues: [verified.issue] }
  }
  const repeated =
    kind === 'replan'
      ? budgets.checkReplanHash(result.plan.hash)
      : kind === 'turn'
        ? budgets.countTurn(turnSignature(result.plan))
        : undefined
  if (repeated !== undefined) return { success: false, issues: [repeated] }
  const running = stepInProgress(parts, result)
  if (running !== undefined) return { success: false, issues: [running] }
  return result
}

/** `PlanGuard.submitPlan`: checks a new plan, installs it when approved, and audits either way. */
export function submitPlan(
  parts: GuardParts,
  next: unknown,
  kind: SubmitKind,
  signature: string | undefined,
): SubmitResult {
  const result = check(parts, next, kind, signature)
  if (!result.success) {
    parts.record({ type: 'plan_rejected', kind, issues: result.issues })
    return result
  }
  // A turn's hash is computed only if something reads it (a snapshot, the audit, a re-plan).
  parts.budgets.notePlan(result.plan)
  const { flow } = parts
  parts.run.install(result.plan, kind === 'turn' ? 'turn' : 'plan', false, (stepId) =>
    flow.forget(stepId),
  )
  flow.place(parts.run.steps.ids, parts.run.steps.positions)
  parts.tainted.place(parts.run.steps.ids, parts.run.steps.positions)
  // Text in this plan can only have been copied from untrusted output that exists now.
  flow.planApproved(result.plan.steps.map((step) => step.id))
  // A turn's calls may run together: a command must not run ahead of a write beside it.
  if (kind === 'turn')
    for (const step of result.plan.steps)
      labelWrittenFiles(parts, step, step.args, parts.compiler.policy.scope.roots, false)
  const approval = (): AuditEvent => ({
    type: 'plan_approved',
    kind: kind === 'turn' ? 'turn' : 'replan',
    planHash: result.plan.hash,
    steps: result.plan.steps.length,
    signed: parts.signatureRequired,
  })
  // Without a sink the approval is built only if a tracer records it.
  if (parts.audit.enabled) parts.record(approval())
  else traceGuardEvent(approval)
  return result
}
