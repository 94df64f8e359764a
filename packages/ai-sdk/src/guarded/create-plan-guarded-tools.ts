import {
  createPlanCompiler,
  createPlanGuard,
  isCompiledPlan,
  type PlanCompiler,
  PlanError,
  type PlanGuard,
  type PlanGuardState,
  type PolicyInput,
  type ResolvedPolicy,
} from '@plan/core'
import type { LanguageModel, PrepareStepFunction, StopCondition, ToolSet } from 'ai'
import {
  type PlanToolApprovalFunction,
  type PlanToolApprovalOptions,
  planToolApproval,
} from '../approval/plan-tool-approval.js'
import { modelStepsWith } from '../loop/model-steps.js'
import type { PlanMode } from '../loop/plan-mode.js'
import { planPrepareStep } from '../loop/plan-prepare-step.js'
import { planStopWhen } from '../loop/plan-stop-when.js'
import { type GuardToolsOptions, guardTools } from '../tools/guard-tools.js'

/** Options for {@link createPlanGuardedTools}: the tools, and a policy or a compiler. */
export interface CreatePlanGuardedToolsOptions<TOOLS extends ToolSet> {
  /** The tool set to guard; every tool needs an `execute` function. */
  readonly tools: TOOLS
  /** The policy (object or resolved); ignored when `compiler` is given. */
  readonly policy?: PolicyInput | ResolvedPolicy
  /** A compiler bound to the policy, when you already have one. */
  readonly compiler?: PlanCompiler
  /**
   * An approved plan (a compiled plan, or a plan to compile): plan mode, where every call
   * must match one of its steps. Without it: per-turn mode, where each model response's
   * batch of tool calls is compiled as a plan. Throws `PlanCompilationError` if rejected.
   */
  readonly plan?: unknown
  /** Resume a run from `guard.snapshot()`. */
  readonly state?: PlanGuardState
  /** Check path arguments on disk (symlinks resolved) before a call runs. Default true. */
  readonly checkPathsOnDisk?: boolean
  /** Called after every decision of a wrapped tool. */
  readonly onDecision?: GuardToolsOptions['onDecision']
  /** Status of allowed calls in the approval function; see {@link PlanToolApprovalOptions}. */
  readonly allowedStatus?: PlanToolApprovalOptions['allowedStatus']
  /**
   * Plan mode: the model that runs the plan's `extract` and `generate` steps, without tools
   * (see `modelStepToolPolicy`); they run in `prepareStep`, never through the agent's model.
   */
  readonly extractionModel?: LanguageModel
  /** Plan mode: stop the loop once the plan is complete, before the model answers. Default false. */
  readonly stopWhenComplete?: boolean
  /**
   * A guard store (`@plan/postgres`): the run's state is written before every call starts and
   * after it ends, and, without `state`, the run resumes from the state saved under `runId`.
   */
  readonly store?: GuardToolsOptions['store']
  /** The run's id in `store`. */
  readonly runId?: string
  /** The run's keys for the policy's shared budgets, e.g. `{ tenant: 'acme' }`. */
  readonly keys?: GuardToolsOptions['keys']
  /** Asked before a call that a crash interrupted runs again; see `guardTools`. */
  readonly retryInterrupted?: GuardToolsOptions['retryInterrupted']
}

/** Everything to pass to `generateText`, `streamText` or `ToolLoopAgent`, and the guard. */
export interface PlanGuardedTools<TOOLS extends ToolSet> {
  /** The tool set with every `execute` guarded. */
  readonly tools: TOOLS
  /** The `toolApproval` function: denials reach the model as `execution-denied`. */
  readonly toolApproval: PlanToolApprovalFunction
  /** Tool masking (plan mode) or turn compilation (per-turn mode). */
  readonly prepareStep: PrepareStepFunction<TOOLS>
  /** Ends the loop on an exhausted budget, or when the plan is complete. */
  readonly stopWhen: StopCondition<TOOLS>
  /** The run-time guard; `guard.snapshot()` saves the run. */
  readonly guard: PlanGuard
  /** The compiler the guard checks with. */
  readonly compiler: PlanCompiler
  readonly mode: PlanMode
}

/**
 * Creates a guard for a tool set and everything that wires it into an AI SDK loop: guarded
 * tools, the `toolApproval` function, `prepareStep` and `stopWhen`. With `plan`, calls must
 * match the approved plan; without, each model response's tool calls are compiled as a plan.
 *
 * @example
 * ```ts
 * const { tools, toolApproval, prepareStep, stopWhen } = await createPlanGuardedTools({
 *   tools: { view_file, write_file, run_command },
 *   policy,
 * })
 * const result = await generateText({
 *   model,
 *   tools,
 *   toolApproval,
 *   prepareStep,
 *   stopWhen: [stopWhen, stepCountIs(50)],
 *   prompt: 'Fix the failing test',
 * })
 * ```
 */
export async function createPlanGuardedTools<TOOLS extends ToolSet>(
  options: CreatePlanGuardedToolsOptions<TOOLS>,
): Promise<PlanGuardedTools<TOOLS>> {
  let compiler = options.compiler
  if (compiler === undefined) {
    if (options.policy === undefined) {
      throw new PlanError('createPlanGuardedTools needs a policy or a compiler.', {
        code: 'invalid_configuration',
      })
    }
    compiler = await createPlanCompiler(options.policy)
  }
  const compiled =
    options.plan === undefined
      ? undefined
      : isCompiledPlan(options.plan)
        ? options.plan
        : compiler.compile(options.plan)
  const state =
    options.state ??
    (options.store === undefined ? undefined : await loadState(options.store, options.runId))
  const guard = createPlanGuard(compiled, {
    compiler,
    ...(state === undefined ? {} : { state }),
    ...(options.checkPathsOnDisk === undefined
      ? {}
      : { checkPathsOnDisk: options.checkPathsOnDisk }),
  })
  const restoredPlanMode = state?.plan != null && state.mode !== 'turn'
  const mode: PlanMode = options.plan !== undefined || restoredPlanMode ? 'plan' : 'turn'
  const tools = guardTools(options.tools, guard, {
    ...(options.onDecision === undefined ? {} : { onDecision: options.onDecision }),
    ...(options.store === undefined ? {} : { store: options.store }),
    ...(options.runId === undefined ? {} : { runId: options.runId }),
    ...(options.keys === undefined ? {} : { keys: options.keys }),
    ...(options.retryInterrupted === undefined
      ? {}
      : { retryInterrupted: options.retryInterrupted }),
  })
  const policyTools = compiler.policy.tools
  const turnTools = Object.keys(tools).filter((name) => policyTools.has(name)) as (keyof TOOLS &
    string)[]
  return {
    tools,
    toolApproval: planToolApproval(guard, {
      askHuman: compiler.policy.policy.trust.tainted?.onRefuse === 'ask',
      ...(options.allowedStatus === undefined ? {} : { allowedStatus: options.allowedStatus }),
      ...(options.onDecision === undefined ? {} : { onDecision: options.onDecision }),
    }),
    prepareStep: planPrepareStep<TOOLS>(guard, {
      mode,
      tools,
      turnTools,
      ...(options.extractionModel === undefined
        ? {}
        : { modelSteps: modelStepsWith(options.extractionModel, compiler) }),
    }),
    stopWhen: planStopWhen<TOOLS>(guard, {
      mode,
      ...(options.stopWhenComplete === undefined
        ? {}
        : { stopWhenComplete: options.stopWhenComplete }),
    }),
    guard,
    compiler,
    mode,
  }
}

/** The guard state saved under `runId`, checked by `createPlanGuard` (it fails closed). */
async function loadState(
  store: NonNullable<GuardToolsOptions['store']>,
  runId: string | undefined,
): Promise<PlanGuardState | undefined> {
  if (runId === undefined) return undefined
  let saved: Awaited<ReturnType<NonNullable<GuardToolsOptions['store']>['load']>>
  try {
    saved = await store.load(runId)
  } catch (error) {
    const message = `The guard store could not be read (${error instanceof Error ? error.message : String(error)}).`
    throw new PlanError(message, {
      issues: [{ code: 'store_failed', message, path: [] }],
      cause: error,
    })
  }
  return saved?.state as PlanGuardState | undefined
}
