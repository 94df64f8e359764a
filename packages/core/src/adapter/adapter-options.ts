import { PlanError } from '@plan/shell/common'
import { createPlanCompiler } from '../compile/create-plan-compiler.js'
import type { RetryInterrupted } from '../durable/authorize-interrupted.js'
import type { GuardStore } from '../durable/guard-store.js'
import type { RunKeys } from '../durable/shared-budget-reservations.js'
import type { Plan } from '../schema/plan-schema.js'
import type { PolicyInput } from '../schema/policy-schema.js'
import type { CompiledPlan } from '../types/compiled-plan.js'
import type { DecisionEvent } from '../types/decision-event.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import type { PlanGuardOptions } from '../types/plan-guard.js'
import type { ResolvedPolicy } from '../types/resolved-policy.js'

/**
 * Where an adapter's policy comes from: exactly one of `policy` (an object, or one already
 * resolved) or `compiler` (one from `createPlanCompiler`, or the promise of one).
 */
export type PolicySource =
  | {
      /** The policy, as an object or already resolved. Give this or `compiler`. */
      readonly policy: PolicyInput | ResolvedPolicy
      readonly compiler?: undefined
    }
  | {
      /** A compiler (or the promise of one) from `createPlanCompiler`. Give this or `policy`. */
      readonly compiler: PlanCompiler | PromiseLike<PlanCompiler>
      readonly policy?: undefined
    }

/**
 * An approved plan given to an adapter: a plan to compile (object or bare array of steps),
 * or a `CompiledPlan`, which the guard verifies again against its compiler.
 */
export type AdapterPlan = Plan | CompiledPlan

/**
 * How an adapter checks calls: `plan` (a call must match a ready step of the approved plan), `turn`
 * (each model turn compiles as a plan) or `call` (each call as a one-step plan, for turnless MCP).
 */
export type AdapterMode = 'plan' | 'turn' | 'call'

/** Every key of `T`, optional and settable to `undefined`. */
type Settable<T> = { readonly [K in keyof T]?: T[K] | undefined }

/**
 * The guard settings every adapter takes, alike in LangChain, the AI SDK and MCP:
 * `checkPathsOnDisk`, `audit` and `labelledFiles` are those of the guard it creates.
 */
export interface AdapterGuardSettings
  extends Settable<Pick<PlanGuardOptions, 'checkPathsOnDisk' | 'audit' | 'labelledFiles'>> {
  /**
   * A guard store (`@plan/postgres`): the run's state is written before every call starts
   * (write-ahead) and after it ends, shared budgets are counted there, and a run resumes from
   * the state saved there. `createSignedGuardStore` wraps it so that an edited state is refused.
   */
  readonly store?: GuardStore | undefined
  /** The run's keys for the policy's shared budgets, e.g. `{ tenant: 'acme' }`. */
  readonly keys?: RunKeys | undefined
  /**
   * Asked when a call a crash interrupted comes again; true runs it again (ask a human). Without
   * it, it is refused with `interrupted_call` (at-most-once), unless its tool is `idempotent`.
   */
  readonly retryInterrupted?: RetryInterrupted | undefined
}

/**
 * The options every adapter takes (`planGuardMiddleware`, `createPlanGuardedTools`,
 * `createMcpCallGuard`): a policy or a compiler, an optional approved plan, a listener for every
 * decision; plus the {@link AdapterGuardSettings} and the adapter's own.
 */
export type AdapterOptions<Event extends DecisionEvent = DecisionEvent> = PolicySource & {
  /**
   * An approved plan: plan mode, every call must match one of its ready steps. Else each turn or
   * call compiles as a plan. A rejected plan throws `PlanCompilationError` as the adapter is built.
   */
  readonly plan?: AdapterPlan | undefined
  /** Called after every decision, before the call runs or is refused (logs, audits, UIs). */
  readonly onDecision?: ((event: Event) => void) | undefined
}

function configurationError(message: string, hint: string): PlanError {
  return new PlanError(message, {
    issues: [{ code: 'invalid_configuration', message, path: [], hint }],
  })
}

/**
 * The compiler of an adapter's options: the one given, or one created from the policy. Throws
 * `PlanError` (`invalid_configuration`) at once, not as a rejected promise, when the options
 * give both a policy and a compiler or neither, so a misconfigured adapter fails where it is
 * built. `caller` names the adapter in the message.
 *
 * @example
 * ```ts
 * const compiler = await resolveCompiler(options, 'createMcpCallGuard')
 * ```
 */
export function resolveCompiler(
  options: { readonly [K in keyof PolicySource]?: PolicySource[K] },
  caller: string,
): Promise<PlanCompiler> {
  const hint = 'Pass exactly one of `policy` or `compiler`.'
  if (options.policy !== undefined && options.compiler !== undefined) {
    throw configurationError(
      `${caller} was given both a policy and a compiler; it needs exactly one.`,
      hint,
    )
  }
  if (options.compiler !== undefined) {
    return Promise.resolve(options.compiler)
  }
  if (options.policy === undefined) {
    throw configurationError(`${caller} needs a policy or a compiler (exactly one).`, hint)
  }
  return createPlanCompiler(options.policy)
}
