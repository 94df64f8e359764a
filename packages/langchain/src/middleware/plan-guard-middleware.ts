import { AIMessage } from '@langchain/core/messages'
import { runReadyModelSteps } from '@plan/core/adapter'
import { type AgentMiddleware, createMiddleware } from 'langchain'
import type { LangChainToolCall } from '../convert/steps-from-tool-calls.js'
import { storedRunState } from './durable-run.js'
import { bindAgentStore, type GuardConfig, guardConfig } from './guard-config.js'
import { guardedModelCall } from './guarded-model-call.js'
import { guardedToolCall } from './guarded-tool-call.js'
import { invocationOf } from './invocation.js'
import { modelStepsWith } from './model-steps.js'
import type { PlanGuardMiddlewareOptions } from './plan-guard-options.js'
import { type PlanGuardFields, planGuardStateSchema } from './plan-guard-state.js'
import { type RunContext, setExit, stopIssue } from './run-context.js'
import { recordRunRegistry } from './run-registry-of.js'
import { endTurnMessages } from './tool-answers.js'

export type { PlanGuardExitBehavior, PlanGuardMiddlewareOptions } from './plan-guard-options.js'

/** The run of the state; a refused state is thrown here, outside LangChain's wrapping. */
async function findOrThrow(
  config: GuardConfig,
  state: PlanGuardFields,
  invocation: object | undefined,
): Promise<RunContext> {
  try {
    return await config.runs.find(state, invocation)
  } catch (error) {
    config.runs.takeRefusal(state)
    throw error
  }
}

/**
 * Registered under `exitBehavior: 'error'` or with an extraction model in plan mode: throws the
 * reason a run ends before the model is called, and runs the plan's model steps.
 */
async function beforeModel(config: GuardConfig, state: PlanGuardFields, runtime: unknown) {
  const invocation = invocationOf(runtime)
  const run = await findOrThrow(config, state, invocation)
  const stop = stopIssue(run)
  if (stop !== undefined) setExit(run, [stop])
  if (run.exit !== undefined && config.exitBehavior === 'error') {
    config.runs.forget(run.id, invocation)
    throw run.exit.error
  }
  if (config.planMode && config.extractionModel !== undefined && run.exit === undefined) {
    const ran = await runReadyModelSteps(
      run.guard,
      modelStepsWith(config.extractionModel, run.compiler),
    )
    if (ran > 0) return { _planGuardState: await storedRunState(config.store, run) }
  }
  return undefined
}

/**
 * Registered under `exitBehavior: 'error'`: a turn that came when nothing can run any more is
 * answered call by call, and the run jumps to its end, where `afterAgent` throws.
 */
async function afterModel(
  config: GuardConfig,
  state: PlanGuardFields & { readonly messages: readonly unknown[] },
  runtime: unknown,
) {
  const run = await config.runs.find(state, invocationOf(runtime))
  const last = state.messages.at(-1)
  const calls: readonly LangChainToolCall[] =
    last !== undefined && AIMessage.isInstance(last) ? (last.tool_calls ?? []) : []
  const stop = stopIssue(run)
  const issues = run.exit?.issues ?? (stop === undefined ? undefined : [stop])
  if (calls.length === 0 || issues === undefined) return undefined
  const messages = endTurnMessages(config, run, calls, issues)
  const saved = await storedRunState(config.store, run)
  return { messages, jumpTo: 'end' as const, _planGuardState: saved }
}

/**
 * Registered with a `beforeModel` hook (which needs the run before the model call starts one):
 * starts a run with its own guard. A refusal a tool call met at this state is thrown here,
 * outside LangChain's wrapping.
 */
async function beforeAgent(config: GuardConfig, state: PlanGuardFields, runtime: unknown) {
  const refusal = config.runs.takeRefusal(state)
  if (refusal !== undefined) throw refusal
  const run = await config.runs.start(invocationOf(runtime))
  return { _planGuardRunId: run.id, _planGuardState: await storedRunState(config.store, run) }
}

/** Registered under `exitBehavior: 'error'`: drops the run from memory and throws its exit. */
async function afterAgent(config: GuardConfig, state: PlanGuardFields, runtime: unknown) {
  const invocation = invocationOf(runtime)
  const id = state._planGuardRunId
  const refusal = config.runs.takeRefusal(state)
  if (refusal !== undefined) throw refusal
  // A run resumed right here still ends as its saved state says (an "error" exit throws).
  const run =
    id === undefined || (!config.runs.has(id, invocation) && state._planGuardState === undefined)
      ? undefined
      : await config.runs.find(state, invocation)
  if (id !== undefined) config.runs.forget(id, invocation)
  if (run?.exit !== undefined && config.exitBehavior === 'error') throw run.exit.error
  return undefined
}

/**
 * LangChain `createAgent` middleware that lets only the tool calls a `@plan` policy (and,
 * in plan mode, the approved plan) allows reach the tools. Every decision is made by
 * `@plan/core`: `wrapToolCall` checks each model turn's batch of calls as a plan (per-turn
 * mode), authorizes each call with the run's guard, and answers a denied call with an error
 * `ToolMessage` (inside a `Command` that also saves the guard's state) that says what was
 * wrong and what is allowed; `wrapModelCall` hides the tools that cannot run, and answers every
 * call of a run that can run nothing more and ends it.
 * Each agent invocation gets its own guard, so budgets and loop detection span one run. The
 * guard's state is kept in the agent state (`_planGuardState`), so a checkpointed run resumed
 * in another process, or by a new instance of this middleware, goes on with the same budgets,
 * step statuses and loop counts; a saved state that does not check out fails closed. With a
 * `store`, every such state is saved there first and a run resumes from the store's copy.
 * Only the hooks a configuration needs become graph nodes (each costs LangGraph a step): none
 * under `exitBehavior` `'continue'` or `'end'`, where a run starts at its first model call;
 * `beforeAgent`, `beforeModel`, `afterModel` and `afterAgent` under `exitBehavior: 'error'`;
 * `beforeAgent` and `beforeModel` with an `extractionModel`.
 * List it last in `middleware`, so that no other `wrapToolCall` runs between its check and
 * the tool.
 *
 * @example
 * ```ts
 * import { createAgent } from 'langchain'
 * import { planGuardMiddleware } from '@plan/langchain'
 *
 * const agent = createAgent({
 *   model,
 *   tools: [viewFile, runCommand],
 *   middleware: [planGuardMiddleware({ policy })],
 * })
 * ```
 */
export function planGuardMiddleware(
  options: PlanGuardMiddlewareOptions,
): AgentMiddleware<typeof planGuardStateSchema> {
  const config = guardConfig(options)
  const throwsOnExit = config.exitBehavior === 'error'
  const runsModelSteps = config.planMode && config.extractionModel !== undefined
  const middleware = createMiddleware({
    name: config.name,
    stateSchema: planGuardStateSchema,
    ...(config.startsAtModelCall
      ? {}
      : {
          beforeAgent: (state: PlanGuardFields, runtime: unknown) => {
            bindAgentStore(config, runtime)
            return beforeAgent(config, state, runtime)
          },
        }),
    ...(throwsOnExit || runsModelSteps
      ? {
          beforeModel: (state: PlanGuardFields, runtime: unknown) => {
            bindAgentStore(config, runtime)
            return beforeModel(config, state, runtime)
          },
        }
      : {}),
    wrapModelCall: (request, handler) => {
      bindAgentStore(config, request.runtime)
      return guardedModelCall(config, request, handler)
    },
    ...(throwsOnExit
      ? {
          afterModel: {
            canJumpTo: ['end' as const],
            hook: (
              state: PlanGuardFields & { readonly messages: readonly unknown[] },
              runtime: unknown,
            ) => {
              bindAgentStore(config, runtime)
              return afterModel(config, state, runtime)
            },
          },
        }
      : {}),
    wrapToolCall: (request, handler) => {
      bindAgentStore(config, request.runtime)
      return guardedToolCall(config, request, handler)
    },
    ...(throwsOnExit
      ? {
          afterAgent: (state: PlanGuardFields, runtime: unknown) => {
            bindAgentStore(config, runtime)
            return afterAgent(config, state, runtime)
          },
        }
      : {}),
  })
  recordRunRegistry(middleware, config.runs)
  return middleware
}
