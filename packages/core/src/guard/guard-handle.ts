import type { Policy } from '../schema/policy-schema.js'
import type { CompiledPlan } from '../types/compiled-plan.js'
import type {
  PlanGuard,
  ResolveArgsResult,
  ResourceAuthorizeResult,
  ResourceRequest,
} from '../types/plan-guard.js'
import { authorizeCall, releaseStep } from './authorize-call.js'
import { authorizeResource, completeResource, failResource } from './authorize-resource.js'
import type { GuardParts } from './guard-parts.js'
import { snapshotGuard } from './guard-snapshot.js'
import { interruptedCallIssue } from './interrupted-call.js'
import { completeStep, failStep } from './step-results.js'
import { submitPlan } from './submit-plan.js'

type GuardMethods = Omit<
  PlanGuard,
  'policy' | 'plan' | 'authorizeResource' | 'completeResource' | 'failResource'
>

/**
 * The methods of one guard, made in one object literal. (Closures stored one by one into a new
 * object, as a constructor does, kept every guard alive in the young generation's collections.)
 */
function methodsOf(
  parts: GuardParts,
  resolveArgs: (stepId: string) => ResolveArgsResult,
): GuardMethods {
  const { run, budgets } = parts
  return {
    authorize: (call) => authorizeCall(parts, call),
    complete: (stepId, output) => completeStep(parts, stepId, output),
    fail: (stepId, error) => failStep(parts, stepId, error),
    release: (stepId) => releaseStep(parts, stepId),
    resolveArgs,
    readySteps: () => run.readySteps(),
    readyTools: () => run.readyTools(),
    isComplete: () => run.isComplete(),
    stopReason: () => budgets.stopReason(),
    interruptedCalls: () =>
      run.interruptedSteps().map((stepId) => {
        const tool = run.knownStep(stepId)?.tool ?? ''
        return { stepId, tool, issue: interruptedCallIssue(stepId, tool) }
      }),
    submitPlan: (plan, kind, submitOptions) =>
      submitPlan(parts, plan, kind, submitOptions?.signature),
    snapshot: () => snapshotGuard(parts),
    snapshotAs: (revision) => {
      parts.journal.snapshotTaken(revision)
      return snapshotGuard(parts)
    },
    changesSince: (revision) => parts.journal.changesSince(revision),
    savedAs: (revision) => parts.journal.saved(revision),
  }
}

/**
 * The object {@link PlanGuard} callers hold: methods bound to one guard's parts (they may be passed
 * around detached), and `plan` read live by a getter of the class: a getter made per object literal
 * gives each guard a hidden class of its own, held in old space, which keeps every guard (and all
 * it holds) alive until a full collection. The resource methods, which only some adapters call, are
 * on the prototype (call them on the guard), so a guard does not carry two more closures for them.
 */
export class GuardHandle implements PlanGuard {
  readonly policy: Policy
  readonly authorize!: PlanGuard['authorize']
  readonly complete!: PlanGuard['complete']
  readonly fail!: PlanGuard['fail']
  readonly release!: PlanGuard['release']
  readonly resolveArgs!: PlanGuard['resolveArgs']
  readonly readySteps!: PlanGuard['readySteps']
  readonly readyTools!: PlanGuard['readyTools']
  readonly isComplete!: PlanGuard['isComplete']
  readonly stopReason!: PlanGuard['stopReason']
  readonly interruptedCalls!: PlanGuard['interruptedCalls']
  readonly submitPlan!: PlanGuard['submitPlan']
  readonly snapshot!: PlanGuard['snapshot']
  readonly snapshotAs!: PlanGuard['snapshotAs']
  readonly changesSince!: PlanGuard['changesSince']
  readonly savedAs!: PlanGuard['savedAs']
  readonly #parts: GuardParts

  /** @param resolveArgs the arguments a ready step must be called with */
  constructor(parts: GuardParts, resolveArgs: (stepId: string) => ResolveArgsResult) {
    this.#parts = parts
    this.policy = parts.compiler.policy.policy
    Object.assign(this, methodsOf(parts, resolveArgs))
  }

  /** The current approved plan, or undefined before the first plan in per-turn mode. */
  get plan(): CompiledPlan | undefined {
    return this.#parts.run.plan
  }

  authorizeResource(request: ResourceRequest): ResourceAuthorizeResult {
    return authorizeResource(this.#parts, request)
  }

  completeResource(uri: string, output: unknown): void {
    completeResource(this.#parts, uri, output)
  }

  failResource(uri: string, error: unknown): void {
    failResource(this.#parts, uri, error)
  }
}
