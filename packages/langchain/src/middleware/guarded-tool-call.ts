import { ToolMessage } from '@langchain/core/messages'
import { type Command, isGraphInterrupt } from '@langchain/langgraph'
import { type AuthorizeResult, PlanError, type PlanIssue } from '@plan/core'
import { authorizeInterrupted, finishDurableCall, startDurableCall } from '@plan/core/adapter'
import type { LangChainToolCall } from '../convert/steps-from-tool-calls.js'
import { AskBatch } from './ask-batch.js'
import { askHuman, mayAskHuman } from './ask-human.js'
import { finishedRunState, saveCallState } from './durable-run.js'
import type { GuardConfig } from './guard-config.js'
import { invocationOf } from './invocation.js'
import type { GuardToolHandler, GuardToolRequest } from './plan-guard-state.js'
import { type RunContext, setExit, stopIssue } from './run-context.js'
import {
  denialMessage,
  outputOf,
  refusedMessage,
  reportDenied,
  withRunState,
} from './tool-answers.js'
import { toolErrorMessage } from './tool-error-message.js'
import { callIssue, checkTurn } from './turn-batching.js'

type Request = GuardToolRequest
type Handler = GuardToolHandler
type Answer = ToolMessage | Command

/** The name of a tool, when it has one. */
export function toolName(tool: unknown): string | undefined {
  if (typeof tool !== 'object' || tool === null || !('name' in tool)) return undefined
  return typeof tool.name === 'string' ? tool.name : undefined
}

/** LangGraph interrupts and parent commands travel as exceptions; they are not tool failures. */
function isGraphBubbleUp(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { is_bubble_up?: unknown }).is_bubble_up === true
  )
}

/** Answers a denied call; a stopped run always ends, otherwise `exitBehavior` decides. */
function deny(
  config: GuardConfig,
  run: RunContext,
  call: LangChainToolCall,
  issues: readonly PlanIssue[],
  turnRejected = false,
): ToolMessage {
  reportDenied(config, call, issues)
  const stop = stopIssue(run)
  if (stop !== undefined) setExit(run, [stop])
  else if (config.exitBehavior !== 'continue') setExit(run, issues)
  return denialMessage(config, run, call, issues, turnRejected)
}

/**
 * What must hold before the guard is asked: the tool that would run is the one named, and, in
 * per-turn mode, the call belongs to the approved current turn. Issues, or the call's step id.
 */
function precheck(
  config: GuardConfig,
  run: RunContext,
  request: Request,
):
  | { readonly issues: readonly PlanIssue[]; readonly turnRejected?: boolean }
  | { readonly stepId: string | undefined } {
  const call = request.toolCall
  const actualTool = toolName(request.tool)
  if (request.tool !== undefined && actualTool !== call.name) {
    // An outer middleware swapped the tool: what would run is not what is checked.
    const message = `The call names ${JSON.stringify(call.name)} but would run the tool ${JSON.stringify(actualTool ?? '(unnamed)')}.`
    return { issues: [callIssue('unknown_tool', message, 'Call tools by their own names.')] }
  }
  if (config.planMode) return run.exit === undefined ? { stepId: undefined } : run.exit
  // Per-turn mode: only the calls of the approved current turn may run.
  checkTurn(config, run, request.state.messages)
  const rejected = call.id === undefined ? undefined : run.rejected.get(call.id)
  if (rejected !== undefined) return { issues: rejected, turnRejected: true }
  if (run.exit !== undefined) return run.exit
  const stepId = call.id === undefined ? undefined : run.turnSteps.get(call.id)
  if (stepId !== undefined) return { stepId }
  return {
    issues: [
      callIssue(
        'call_not_in_plan',
        'This call is not part of the current model turn.',
        'Call tools only through the model turn that requested them.',
      ),
    ],
  }
}

/** The batch of questions of the run's current turn (a new one for a new turn). */
function askBatchOf(run: RunContext, calls: readonly string[]): AskBatch {
  const key = `${run.submittedTurn}:${run.submittedKey ?? ''}`
  if (run.asking?.key !== key) run.asking = { key, batch: new AskBatch(calls) }
  return run.asking.batch
}

/** Puts a refused call to a human with the other refusals of its turn (one interrupt). */
async function askWithTurn(
  run: RunContext,
  batch: AskBatch | undefined,
  call: Request['toolCall'],
  issues: readonly PlanIssue[],
) {
  if (batch === undefined || call.id === undefined) return askHuman(call, issues)
  try {
    return await batch.ask({ id: call.id, name: call.name, args: call.args }, issues)
  } catch (error) {
    // The run pauses: the node runs again from its start on resume, with a batch of its own.
    if (run.asking?.batch === batch) run.asking = undefined
    throw error
  }
}

/** Asks the guard; a refusal a human may overrule pauses the run (a LangGraph interrupt). */
async function authorize(
  config: GuardConfig,
  run: RunContext,
  call: Request['toolCall'],
  stepId: string | undefined,
  batch?: AskBatch,
): Promise<AuthorizeResult> {
  const onRefuse = run.compiler.policy.policy.trust.tainted?.onRefuse
  const ask = (humanApproved: boolean) =>
    authorizeInterrupted(
      run.guard,
      {
        tool: call.name,
        args: call.args,
        ...(call.id === undefined ? {} : { callId: call.id }),
        ...(stepId === undefined ? {} : { stepId }),
        ...(humanApproved ? { humanApproved } : {}),
        // The node that asks is replayed on resume: the refusal it asked about counts once.
        ...(onRefuse === 'ask' ? { asksHuman: true } : {}),
      },
      config.retryInterrupted,
    )
  const result = await ask(false)
  if (result.allowed || !mayAskHuman(result.issues, onRefuse)) {
    if (call.id !== undefined) batch?.arrive(call.id)
    return result
  }
  const answer = await askWithTurn(run, batch, call, result.issues)
  if (answer.approved) return ask(true)
  if (answer.message === undefined) return result
  const said = callIssue('tainted_run', `A human refused this call: ${answer.message}`, '')
  return { allowed: false, issue: said, issues: [said] }
}

/** Runs an authorized call: its reservation saved first, then the tool, then its outcome. */
async function runAuthorized(
  config: GuardConfig,
  run: RunContext,
  request: Request,
  handler: Handler,
  result: AuthorizeResult & { readonly allowed: true },
): Promise<Answer> {
  const call = request.toolCall
  const blocked = await startDurableCall({
    store: config.store,
    runId: run.id,
    policy: run.compiler.policy.policy,
    tool: call.name,
    stepId: result.stepId,
    ...(config.keys === undefined ? {} : { keys: config.keys }),
    // What the call changed, not the whole state, where the store takes changes.
    saved: { save: () => saveCallState(config.store, run) },
  })
  if (blocked.length > 0) {
    run.guard.release(result.stepId)
    return deny(config, run, call, blocked)
  }
  let response: Answer
  try {
    config.report({
      kind: 'call',
      tool: call.name,
      callId: call.id,
      args: call.args,
      allowed: true,
      stepId: result.stepId,
      issues: [],
    })
    // The tool gets the arguments the guard checked (paths resolved on disk).
    response = await handler({ ...request, toolCall: { ...call, args: result.args } })
  } catch (error) {
    if (isGraphBubbleUp(error)) {
      run.guard.release(result.stepId)
      // A paused call runs again when the run resumes: the store must not hold it as started.
      await finishDurableCall(config.store, run.id, () => saveCallState(config.store, run))
      throw error
    }
    // Answered as LangChain answers a throwing tool without middleware.
    const message = toolErrorMessage(error, call)
    run.guard.fail(result.stepId, message.content)
    return message
  }
  if (!ToolMessage.isInstance(response)) run.guard.complete(result.stepId, null)
  else if (response.status === 'error') run.guard.fail(result.stepId, response.content)
  else run.guard.complete(result.stepId, outputOf(response))
  return response
}

async function answer(
  config: GuardConfig,
  run: RunContext,
  request: Request,
  handler: Handler,
): Promise<Answer> {
  const call = request.toolCall
  const checked = precheck(config, run, request)
  // Per-turn mode: the calls of one turn that a human is asked about are asked about together.
  const batch =
    config.planMode || call.id === undefined
      ? undefined
      : askBatchOf(run, [...run.turnSteps.keys()])
  if (call.id !== undefined) batch?.start(call.id)
  try {
    if ('issues' in checked) return deny(config, run, call, checked.issues, checked.turnRejected)
    const result = await authorize(config, run, call, checked.stepId, batch)
    if (!result.allowed) return deny(config, run, call, result.issues)
    return runAuthorized(config, run, request, handler, result)
  } finally {
    if (call.id !== undefined) batch?.arrive(call.id)
  }
}

/**
 * The middleware's `wrapToolCall`: authorizes the call with the run's guard and runs it, or
 * answers it with an error `ToolMessage`; every answer also writes the run's state.
 */
export async function guardedToolCall(
  config: GuardConfig,
  request: Request,
  handler: Handler,
): Promise<Answer> {
  const invocation = invocationOf(request.runtime)
  let run: RunContext
  try {
    run = await config.runs.find(request.state, invocation)
  } catch (error) {
    // LangChain would wrap a throw here; the call is refused, and the next model call ends the run.
    if (!PlanError.isInstance(error)) throw error
    reportDenied(config, request.toolCall, error.issues)
    config.runs.refuse(request.state, error, config.startsAtModelCall ? invocation : undefined)
    return refusedMessage(request.toolCall, error)
  }
  let response: Answer
  try {
    response = await answer(config, run, request, handler)
  } catch (error) {
    // Paused here, the run's checkpoint misses what the step's other calls did: keep it.
    if (isGraphInterrupt(error)) config.runs.pause(run)
    throw error
  }
  // Every answer, denial or result, writes the guard's state (saved to the store first).
  return withRunState(response, await finishedRunState(config.store, run))
}
