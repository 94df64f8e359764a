import type { Policy } from '../schema/policy-schema.js'
import type { CompiledPlan } from '../types/compiled-plan.js'
import type { PlanGuard, ResolveArgsResult } from '../types/plan-guard.js'
import { authorizeCall, releaseStep } from './authorize-call.js'
import type { GuardParts } from './guard-parts.js'
import { snapshotGuard } from './guard-snapshot.js'
import { interruptedCallIssue } from './interrupted-call.js'
import type { RunState } from './run-state.js'
import { completeStep, failStep } from './step-results.js'
import { submitPlan } from './submit-plan.js'

/**
 * The object {@link PlanGuard} callers hold: methods bound to one guard's parts (they may be
 * passed around detached), and `plan` read live. `plan` is a getter of the class, not of an
 * object literal: a getter made per object gives each guard a hidden class of its own, held
 * in old space, which keeps every guard (and all it holds) alive until a full collection.
 */
export class GuardHandle implements PlanGuard {
  readonly policy: Policy
  readonly authorize: PlanGuard['authorize']
  readonly complete: PlanGuard['complete']
  readonly fail: PlanGuard['fail']
  readonly release: PlanGuard['release']
  readonly resolveArgs: PlanGuard['resolveArgs']
  readonly readySteps: PlanGuard['readySteps']
  readonly readyTools: PlanGuard['readyTools']
  readonly isComplete: PlanGuard['isComplete']
  readonly stopReason: PlanGuard['stopReason']
  readonly interruptedCalls: PlanGuard['interruptedCalls']
  readonly submitPlan: PlanGuard['submitPlan']
  readonly snapshot: PlanGuard['snapshot']
  readonly #run: RunState

  /** @param resolveArgs the arguments a ready step must be called with */
  constructor(parts: GuardParts, resolveArgs: (stepId: string) => ResolveArgsResult) {
    const { run, budgets } = parts
    this.#run = run
    this.policy = parts.compiler.policy.policy
    this.authorize = (call) => authorizeCall(parts, call)
    this.complete = (stepId, output) => completeStep(parts, stepId, output)
    this.fail = (stepId, error) => failStep(parts, stepId, error)
    this.release = (stepId) => releaseStep(parts, stepId)
    this.resolveArgs = resolveArgs
    this.readySteps = () => run.readySteps()
    this.readyTools = () => run.readyTools()
    this.isComplete = () => run.isComplete()
    this.stopReason = () => budgets.stopReason()
    this.interruptedCalls = () =>
      run.interruptedSteps().map((stepId) => {
        const tool = run.knownSteps.get(stepId)?.tool ?? ''
        return { stepId, tool, issue: interruptedCallIssue(stepId, tool) }
      })
    this.submitPlan = (plan, kind, submitOptions) =>
      submitPlan(parts, plan, kind, submitOptions?.signature)
    this.snapshot = () => snapshotGuard(run, budgets, parts.flow)
  }

  /** The current approved plan, or undefined before the first plan in per-turn mode. */
  get plan(): CompiledPlan | undefined {
    return this.#run.plan
  }
}
