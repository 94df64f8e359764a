import { PlanError } from '@plan/shell/common'
import { createPlanGuard } from '../guard/create-plan-guard.js'
import type { CompiledPlan } from '../types/compiled-plan.js'
import type { ToolFunction } from '../types/tool-function.js'
import type { ExecutePlanOptions } from './execute-plan-options.js'
import type { ExecutionResult } from './execution-result.js'
import { ExecutionRun } from './execution-run.js'
import { runStep } from './run-step.js'

export type { ExecutePlanOptions } from './execute-plan-options.js'
export type { ExecutionResult, ExecutionStepResult } from './execution-result.js'

/**
 * Runs an approved plan: ready steps run in parallel up to `concurrency`, each call goes
 * through a `PlanGuard` (planned arguments, references resolved and checked again,
 * paths checked on disk, budgets), with a per-step timeout, bounded retries, an abort
 * signal and progress events. Steps on the longest remaining chain start first.
 *
 * A tool that throws, hangs or returns something that is not JSON fails its own step only.
 * The promise never rejects for a tool's misbehaviour; it throws `PlanError` only when the
 * plan is not approved by `options.compiler`.
 *
 * @example
 * ```ts
 * // createReferenceTools comes from `@plan/tools`.
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
      audit: options.audit,
      signature: options.signature,
      secret: options.secret,
    })
  const plan = guard.plan
  if (plan === undefined || plan.hash !== compiled.hash)
    throw new PlanError('The guard does not hold the plan to execute.', {
      code: 'invalid_configuration',
    })
  return new ExecutionRun(guard, plan, tools, options, runStep).start()
}
