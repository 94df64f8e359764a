import { randomUUID } from 'node:crypto'
import { AIMessage, SystemMessage } from '@langchain/core/messages'
import { Command } from '@langchain/langgraph'
import { PlanError } from '@plan/core'
import { allowedText } from '@plan/core/adapter'
import type { LangChainToolCall } from '../convert/steps-from-tool-calls.js'
import { storedRunState } from './durable-run.js'
import type { GuardConfig } from './guard-config.js'
import { endText, lastWordText } from './guard-messages.js'
import { toolName } from './guarded-tool-call.js'
import { invocationOf } from './invocation.js'
import type { GuardModelHandler, GuardModelRequest } from './plan-guard-state.js'
import { type RunContext, setExit, stopIssue } from './run-context.js'
import { refusalUpdate } from './run-refusal.js'
import { endTurnMessages } from './tool-answers.js'

type Request = GuardModelRequest

type Handler = GuardModelHandler

/** `text` appended to the system message, so its content blocks (cache control) survive. */
function withSystemText(request: Request, text: string): Request {
  const systemMessage =
    request.systemMessage.text === ''
      ? new SystemMessage(text)
      : request.systemMessage.concat(`\n\n${text}`)
  return { ...request, systemMessage }
}

/** The request as the guard lets the model see it: only the tools that can run, the ready steps. */
function guardedRequest(config: GuardConfig, run: RunContext, request: Request): Request {
  let next = request
  if (config.maskTools) {
    const allowed = new Set(
      config.planMode ? run.guard.readyTools() : run.compiler.policy.tools.keys(),
    )
    next = {
      ...next,
      tools: request.tools.filter((tool) => {
        const name = toolName(tool)
        return name !== undefined && allowed.has(name)
      }),
    }
  }
  if (config.planMode && config.describePlan) {
    next = withSystemText(next, allowedText({ guard: run.guard }))
  }
  return next
}

/**
 * A model answer with the id of an earlier message (a scripted model started again) would
 * replace that message, out of order, in the history: it gets a fresh id and comes last.
 */
function keepEarlierMessage(request: Request, response: AIMessage): void {
  const { id } = response
  if (id === undefined || !request.state.messages.some((message) => message.id === id)) return
  const fresh = randomUUID()
  response.id = fresh
  response.lc_kwargs.id = fresh
}

/**
 * A model answer is a new turn. When the run can run nothing more, its calls are answered
 * here and the run ends (under `error`, the `afterModel` hook does this and throws). The answer
 * comes back as a `Command` that also writes the run's state (and, for a run started here, its
 * id), saved to the store first, unless the turn changed nothing in a written run but its turn
 * count: a run neither stopped nor ending, whose next write carries the count. Throws
 * `PlanError` when the store cannot save the state.
 */
async function finishTurn(
  config: GuardConfig,
  run: RunContext,
  request: Request,
  response: AIMessage,
): Promise<AIMessage | Command> {
  run.turn += 1
  const invocation = invocationOf(request.runtime)
  // A structured response travels as it came; it ends the run.
  if (!AIMessage.isInstance(response)) {
    config.runs.forget(run.id, invocation)
    return response
  }
  keepEarlierMessage(request, response)
  const calls: readonly LangChainToolCall[] = response.tool_calls ?? []
  const stop = stopIssue(run)
  const issues = run.exit?.issues ?? (stop === undefined ? undefined : [stop])
  const ends = calls.length > 0 && issues !== undefined && config.exitBehavior !== 'error'
  const unwritten = run.revision === 0
  const update =
    issues === undefined && !unwritten
      ? undefined
      : {
          ...(ends ? { messages: endTurnMessages(config, run, calls, issues) } : {}),
          ...(unwritten ? { _planGuardRunId: run.id } : {}),
          _planGuardState: await storedRunState(config.store, run),
        }
  // A turn without calls is the run's last (its saved state restores it if the agent goes on);
  // under `error`, afterAgent drops it.
  if ((ends || calls.length === 0) && config.exitBehavior !== 'error') {
    config.runs.forget(run.id, invocation)
  }
  return update === undefined ? response : new Command({ update })
}

/** `finishTurn`; a state the store cannot save ends the invocation with its `PlanError`. */
async function finishOrRefuse(
  config: GuardConfig,
  run: RunContext,
  request: Request,
  response: AIMessage,
): Promise<AIMessage | Command> {
  try {
    return await finishTurn(config, run, request, response)
  } catch (error) {
    if (!PlanError.isInstance(error)) throw error
    config.runs.forget(run.id, invocationOf(request.runtime))
    return refusalUpdate(error)
  }
}

/**
 * The middleware's `wrapModelCall`: hides the tools that cannot run and, in plan mode, tells
 * the model the ready steps; a stopped run gets one last model call without tools, to explain;
 * an ended run gets no model call at all. A run whose saved state is refused never reaches the
 * model: the run ends, and its `afterAgent` throws the `PlanError`.
 */
export async function guardedModelCall(
  config: GuardConfig,
  request: Request,
  handler: Handler,
): Promise<AIMessage | Command> {
  const invocation = invocationOf(request.runtime)
  let run: RunContext
  try {
    run = config.startsAtModelCall
      ? await config.runs.forModelCall(request.state, invocation)
      : await config.runs.find(request.state, invocation)
  } catch (error) {
    // LangChain would wrap a throw here: the state's reducer throws it.
    if (!PlanError.isInstance(error)) throw error
    return refusalUpdate(error)
  }
  const stop = stopIssue(run)
  if (stop !== undefined) setExit(run, [stop])
  // A stopped run: the model is told why once, without tools; then the agent ends.
  if (run.exit !== undefined && !run.told && stop !== undefined) {
    run.told = true
    const lastWord = withSystemText({ ...request, tools: [] }, lastWordText(run.exit.issues))
    return finishOrRefuse(config, run, request, await handler(lastWord))
  }
  // The run is over: answer for the model, so the agent ends.
  if (run.exit !== undefined) {
    run.turn += 1
    config.runs.forget(run.id, invocation)
    return new AIMessage(endText(run.exit.issues))
  }
  return finishOrRefuse(config, run, request, await handler(guardedRequest(config, run, request)))
}
