import { PlanError } from '../errors/plan-error.js'
import { createPlanGuard } from '../guard/create-plan-guard.js'
import type { AuditSink } from '../types/audit-sink.js'
import type { CompiledPlan } from '../types/compiled-plan.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import type { PlanGuard } from '../types/plan-guard.js'
import type { ToolFunction } from '../types/tool-function.js'
import type { ExecutionEvent } from './execution-event.js'
import type { ExecutionResult } from './execution-result.js'
import { ExecutionRun } from './execution-run.js'
import { runStep } from './run-step.js'

export type { ExecutionResult, ExecutionStepResult } from './execution-result.js'

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
  const guard =
    options.guard ??
    createPlanGuard(compiled, {
      compiler: options.compiler,
      checkPathsOnDisk: options.checkPathsOnDisk ?? true,
      now: options.now ?? Date.now,
      ...(options.audit === undefined ? {} : { audit: options.audit }),
      ...(options.signature === undefined ? {} : { signature: options.signature }),
      ...(options.secret === undefined ? {} : { secret: options.secret }),
    })
  const plan = guard.plan
  if (plan === undefined || plan.hash !== compiled.hash)
    throw new PlanError('The guard does not hold the plan to execute.', {
      code: 'invalid_configuration',
    })
  return new ExecutionRun(guard, plan, tools, options, runStep).start()
}
