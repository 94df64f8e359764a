import {
  type AdapterGuardSettings,
  type AdapterOptions,
  type CompiledPlan,
  createPlanGuard,
  type DecisionEvent,
  type PlanCompiler,
  type PlanGuard,
  type PlanGuardState,
  type SavedRunState,
} from '@plan/core'
import { isCompiledPlan, loadSavedState, resolveCompiler } from '@plan/core/adapter'
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
import { setRefusalContext } from '../session/denial.js'
import { resumeWriter } from '../tools/durable-calls.js'
import { type GuardToolsOptions, guardTools } from '../tools/guard-tools.js'

/**
 * Options for {@link createPlanGuardedTools}: the adapter options every `@plan` adapter takes
 * (exactly one of `policy` or `compiler`, an optional approved `plan`, `onDecision`), the guard
 * settings every adapter takes (`checkPathsOnDisk`, `audit`, `store`, `keys`,
 * `retryInterrupted`, `labelledFiles`), the tools, and the AI SDK's own settings.
 */
export type CreatePlanGuardedToolsOptions<TOOLS extends ToolSet> = AdapterOptions<DecisionEvent> &
  AdapterGuardSettings &
  AiSdkGuardSettings<TOOLS>

/** The options of {@link createPlanGuardedTools} that only the AI SDK adapter has. */
export interface AiSdkGuardSettings<TOOLS extends ToolSet> {
  /** The tool set to guard; every tool needs an `execute` function. */
  readonly tools: TOOLS
  /** Resume a run from `guard.snapshot()`. */
  readonly state?: PlanGuardState
  /** Status of allowed calls in the approval function; see {@link PlanToolApprovalOptions}. */
  readonly allowedStatus?: PlanToolApprovalOptions['allowedStatus']
  /**
   * Plan mode: the model that runs the plan's `extract` and `generate` steps, without tools
   * (see `modelStepToolPolicy`); they run in `prepareStep`, never through the agent's model.
   */
  readonly extractionModel?: LanguageModel
  /**
   * Hide from the model the tools that cannot run: in plan mode, every tool no ready step
   * needs; in per-turn mode, every tool the policy does not list. Default true. A call of a
   * hidden tool still reaches the guard, which refuses it with an `onDecision` event and an
   * audit line, as in the other adapters; false shows the model every tool.
   */
  readonly maskTools?: boolean
  /** Plan mode: stop the loop once the plan is complete, before the model answers. Default false. */
  readonly stopWhenComplete?: boolean
  /** The run's id in `store`; without `state`, the run resumes from the state saved under it. */
  readonly runId?: string
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
export function createPlanGuardedTools<TOOLS extends ToolSet>(
  options: CreatePlanGuardedToolsOptions<TOOLS>,
): Promise<PlanGuardedTools<TOOLS>> {
  const given = options.compiler
  // a compiler itself (not a promise of one): nothing to wait for before the guard is made
  if (options.policy === undefined && given !== undefined && !isPromiseLike(given))
    return guardedToolsWith(given, options)
  // exactly one of policy and compiler, checked before anything is awaited
  const compiler = resolveCompiler(options, 'createPlanGuardedTools')
  return compiler.then((resolved) => guardedToolsWith(resolved, options))
}

function isPromiseLike(value: object): value is PromiseLike<unknown> {
  return typeof (value as Partial<PromiseLike<unknown>>).then === 'function'
}

async function guardedToolsWith<TOOLS extends ToolSet>(
  compiler: PlanCompiler,
  options: CreatePlanGuardedToolsOptions<TOOLS>,
): Promise<PlanGuardedTools<TOOLS>> {
  const compiled: CompiledPlan | undefined =
    options.plan === undefined
      ? undefined
      : isCompiledPlan(options.plan)
        ? options.plan
        : compiler.compile(options.plan)
  const saved =
    options.state !== undefined || options.store === undefined
      ? undefined
      : await loadState(options.store, options.runId)
  const state = options.state ?? (saved?.state as PlanGuardState | undefined)
  // Options left undefined are absent to `createPlanGuard`: one object, no spread per run.
  const guard = createPlanGuard(compiled, {
    compiler,
    state,
    checkPathsOnDisk: options.checkPathsOnDisk,
    audit: options.audit,
    labelledFiles: options.labelledFiles,
  })
  // The state resumed from is the writer's base: a save after another writer's fails.
  if (options.state === undefined && options.store !== undefined) resumeWriter(guard, saved)
  const restoredPlanMode = state?.plan != null && state.mode !== 'turn'
  const mode: PlanMode = options.plan !== undefined || restoredPlanMode ? 'plan' : 'turn'
  setRefusalContext(guard, mode === 'plan' ? { guard } : { compiler })
  return wire(guard, compiler, mode, options)
}

/** The guarded tools and the loop hooks for a guard. */
function wire<TOOLS extends ToolSet>(
  guard: PlanGuard,
  compiler: PlanCompiler,
  mode: PlanMode,
  options: CreatePlanGuardedToolsOptions<TOOLS>,
): PlanGuardedTools<TOOLS> {
  // `options` holds every setting of `guardTools` under its own name: it is passed as it is.
  const tools = guardTools(options.tools, guard, options)
  return {
    tools,
    toolApproval: planToolApproval(guard, {
      askHuman: compiler.policy.policy.trust.tainted?.onRefuse === 'ask',
      allowedStatus: options.allowedStatus,
      onDecision: options.onDecision,
    }),
    prepareStep: planPrepareStep<TOOLS>(guard, {
      mode,
      tools,
      turnTools:
        mode === 'turn' && options.maskTools !== false
          ? policyToolNames(tools, compiler)
          : undefined,
      maskTools: options.maskTools,
      onDecision: options.onDecision,
      modelSteps:
        options.extractionModel === undefined
          ? undefined
          : modelStepsWith(options.extractionModel, compiler),
    }),
    stopWhen: planStopWhen<TOOLS>(guard, { mode, stopWhenComplete: options.stopWhenComplete }),
    guard,
    compiler,
    mode,
  }
}

/** The tools of the set that the policy lists: the ones a model may see in per-turn mode. */
function policyToolNames<TOOLS extends ToolSet>(
  tools: TOOLS,
  compiler: PlanCompiler,
): (keyof TOOLS & string)[] {
  const listed = compiler.policy.tools
  return Object.keys(tools).filter((name) => listed.has(name)) as (keyof TOOLS & string)[]
}

/** The run saved under `runId`; its state is checked by `createPlanGuard` (it fails closed). */
async function loadState(
  store: NonNullable<GuardToolsOptions['store']>,
  runId: string | undefined,
): Promise<SavedRunState | undefined> {
  if (runId === undefined) return undefined
  return await loadSavedState(store, runId)
}
