import { type ModelStepTools, PlanError, type PlanGuard } from '@plan/core'
import { runReadyModelSteps } from '@plan/core/adapter'
import {
  gateway,
  type LanguageModel,
  type PrepareStepFunction,
  type Provider,
  type ToolSet,
  wrapLanguageModel,
} from 'ai'
import { releaseStaleReservations } from '../session/decide-call.js'
import { type PlanTurnMiddlewareOptions, planTurnMiddleware } from '../turn/plan-turn-middleware.js'
import { markLastWord } from './last-word.js'
import { lastWordInstructions } from './last-word-instructions.js'
import { lastWordMiddleware } from './last-word-middleware.js'
import { maskToolsMiddleware, withMaskedTools } from './mask-tools-middleware.js'
import { modeOf, type PlanMode } from './plan-mode.js'

/** Options for {@link planPrepareStep}. */
export interface PlanPrepareStepOptions<TOOLS extends ToolSet = ToolSet> {
  /** `'plan'` or `'turn'`; by default `'plan'` when the guard holds a plan when this is created. */
  readonly mode?: PlanMode
  /**
   * The (guarded) tool set. In per-turn mode it lets the turn middleware validate inputs with
   * each tool's schema; see {@link PlanTurnMiddlewareOptions.tools}.
   */
  readonly tools?: TOOLS
  /**
   * Tool names the model may see in per-turn mode, e.g. the tools the policy lists; a call of
   * another tool still reaches the guard. Default: no narrowing in per-turn mode.
   */
  readonly turnTools?: readonly (keyof TOOLS & string)[]
  /**
   * Plan mode: show the model only the tools of the plan's ready steps. Default true. A call of
   * another tool still reaches the guard, which refuses and reports it.
   */
  readonly maskTools?: boolean
  /** Plan mode: runs the plan's ready `extract` and `generate` steps before each step. */
  readonly modelSteps?: ModelStepTools
  /** Per-turn mode: called with each turn's decision (see {@link PlanTurnMiddlewareOptions}). */
  readonly onDecision?: PlanTurnMiddlewareOptions['onDecision']
}

function resolveModel(model: LanguageModel): Exclude<LanguageModel, string> {
  if (typeof model !== 'string') return model
  // same lookup as the SDK uses for model ids
  const provider =
    (globalThis as { AI_SDK_DEFAULT_PROVIDER?: Provider }).AI_SDK_DEFAULT_PROVIDER ?? gateway
  const resolved = provider.languageModel(model)
  if (typeof resolved === 'string') {
    throw new PlanError(
      `planPrepareStep cannot resolve the model id ${JSON.stringify(model)}; pass a model object.`,
      { code: 'invalid_configuration' },
    )
  }
  return resolved
}

/**
 * A `prepareStep` function that keeps the model in step with the guard.
 *
 * - Plan mode: the model is shown only the tools of the plan's ready steps (tool masking);
 *   with nothing ready, or once the guard has stopped, it gets no tools.
 * - Per-turn mode: the step's model is wrapped with {@link planTurnMiddleware}, so each
 *   response's batch of tool calls is compiled as a plan before any of them runs.
 *
 * Masking is a convenience for the model; the tool wrappers still check every call.
 *
 * @example
 * ```ts
 * const agent = new ToolLoopAgent({
 *   model,
 *   tools: guardTools(tools, guard),
 *   prepareStep: planPrepareStep(guard),
 *   stopWhen: planStopWhen(guard),
 * })
 * ```
 */
export function planPrepareStep<TOOLS extends ToolSet = ToolSet>(
  guard: PlanGuard,
  options: PlanPrepareStepOptions<TOOLS> = {},
): PrepareStepFunction<TOOLS> {
  const mode = modeOf(guard, options.mode)
  // per-turn mode only: the middleware and the wrapped model are made at the first step
  let middleware: ReturnType<typeof planTurnMiddleware> | undefined
  let lastModel: Exclude<LanguageModel, string> | undefined
  let lastWrapped: Exclude<LanguageModel, string> | undefined
  const turnModel = (model: LanguageModel): Exclude<LanguageModel, string> => {
    const base = resolveModel(model)
    if (base !== lastModel || lastWrapped === undefined) {
      middleware ??= planTurnMiddleware(guard, {
        ...(options.tools === undefined ? {} : { tools: options.tools }),
        ...(options.onDecision === undefined ? {} : { onDecision: options.onDecision }),
      })
      lastModel = base
      const { turnTools } = options
      lastWrapped = wrapLanguageModel({
        model: base,
        middleware: turnTools === undefined ? middleware : withMaskedTools(middleware, turnTools),
      })
    }
    return lastWrapped
  }
  // plan mode only: the model, wrapped so that it sees the tools of the ready steps
  let masking: ReturnType<typeof maskToolsMiddleware> | undefined
  let lastPlanModel: Exclude<LanguageModel, string> | undefined
  let lastMasked: Exclude<LanguageModel, string> | undefined
  const maskedModel = (model: LanguageModel): Exclude<LanguageModel, string> => {
    const base = resolveModel(model)
    if (base !== lastPlanModel || lastMasked === undefined) {
      lastPlanModel = base
      masking ??= maskToolsMiddleware(() => guard.readyTools())
      lastMasked = wrapLanguageModel({ model: base, middleware: masking })
    }
    return lastMasked
  }
  return async ({ model, instructions }) => {
    releaseStaleReservations(guard)
    if (mode === 'plan' && options.modelSteps !== undefined)
      await runReadyModelSteps(guard, options.modelSteps)
    type ActiveTools = (keyof TOOLS & string)[]
    const stop = guard.stopReason()
    if (stop !== undefined) {
      // The model is told why, once, and gets no tools; planStopWhen then ends the loop.
      markLastWord(guard)
      return {
        model: wrapLanguageModel({
          model: resolveModel(model),
          middleware: lastWordMiddleware(stop, options.onDecision),
        }),
        activeTools: [] as ActiveTools,
        instructions: lastWordInstructions(instructions, stop),
      }
    }
    if (mode === 'turn') {
      return { model: turnModel(model) }
    }
    if (options.maskTools === false) return {}
    return { model: maskedModel(model) }
  }
}
