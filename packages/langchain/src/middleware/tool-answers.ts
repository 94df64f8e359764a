import { AIMessage, ToolMessage } from '@langchain/core/messages'
import { Command } from '@langchain/langgraph'
import type { PlanError, PlanIssue } from '@plan/core'
import { allowedText, refusalText } from '@plan/core/adapter'
import type { LangChainToolCall } from '../convert/steps-from-tool-calls.js'
import type { GuardConfig } from './guard-config.js'
import { endText } from './guard-messages.js'
import { PRIVATE_KEYS } from './plan-guard-state.js'
import { type RunContext, setExit, stopIssue } from './run-context.js'
import type { PlanGuardRunState } from './run-state.js'

const ENDING = 'The run is ending; no further tool call will run.'

/** What the model may still do: the ready steps, the policy, or nothing when the run ends. */
function stillAllowed(config: GuardConfig, run: RunContext): string {
  if (stopIssue(run) !== undefined || run.exit !== undefined) return ENDING
  return allowedText(config.planMode ? { guard: run.guard } : { compiler: run.compiler })
}

function errorMessage(call: LangChainToolCall, content: string): ToolMessage {
  return new ToolMessage({
    content,
    tool_call_id: call.id ?? '',
    name: call.name,
    status: 'error',
  })
}

/**
 * The error `ToolMessage` that answers a denied call, in `@plan/core`'s words (the same in
 * every adapter); `turnRejected` when its whole turn was rejected as a plan.
 */
export function denialMessage(
  config: GuardConfig,
  run: RunContext,
  call: LangChainToolCall,
  issues: readonly PlanIssue[],
  turnRejected = false,
): ToolMessage {
  // A tainted-run refusal lists what is still allowed; the whole policy would contradict it.
  const tainted = issues.every((issue) => issue.code === 'tainted_run')
  const allowed = tainted ? '' : stillAllowed(config, run)
  return errorMessage(call, refusalText({ tool: call.name, issues, turnRejected, allowed }))
}

/** Answers a call of a run whose saved state is refused; the tool does not run. */
export function refusedMessage(call: LangChainToolCall, error: PlanError): ToolMessage {
  return errorMessage(call, refusalText({ tool: call.name, issues: error.issues, allowed: ENDING }))
}

/** Reports a call that did not run. */
export function reportDenied(
  config: GuardConfig,
  call: LangChainToolCall,
  issues: readonly PlanIssue[],
): void {
  config.report({
    kind: 'call',
    tool: call.name,
    callId: call.id,
    args: call.args,
    allowed: false,
    stepId: undefined,
    issues,
  })
}

/**
 * Answers every call of a turn without running any, and ends the run: the messages that follow
 * the model's answer (a closing AI message, except when the run ends by throwing).
 */
export function endTurnMessages(
  config: GuardConfig,
  run: RunContext,
  calls: readonly LangChainToolCall[],
  issues: readonly PlanIssue[],
): (ToolMessage | AIMessage)[] {
  setExit(run, issues)
  const messages: (ToolMessage | AIMessage)[] = calls.map((call) => {
    reportDenied(config, call, issues)
    return denialMessage(config, run, call, issues)
  })
  if (config.exitBehavior !== 'error') messages.push(new AIMessage(endText(issues)))
  return messages
}

/** A tool's output as a value for `$ref`s: its artifact, its JSON content, or its text. */
export function outputOf(message: ToolMessage): unknown {
  if (message.artifact !== undefined) return message.artifact
  const content = message.content
  if (typeof content !== 'string') return content
  const trimmed = content.trimStart()
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return JSON.parse(content)
    } catch {
      return content
    }
  }
  return content
}

/** A tool's own `Command` update without the guard's keys, plus the run's state when given. */
function mergedUpdate(update: unknown, state: PlanGuardRunState | undefined): unknown {
  const own: readonly [string, unknown][] = state === undefined ? [] : [['_planGuardState', state]]
  if (Array.isArray(update)) {
    return [
      ...update.filter(
        (entry: unknown) =>
          !(Array.isArray(entry) && typeof entry[0] === 'string' && PRIVATE_KEYS.has(entry[0])),
      ),
      ...own,
    ]
  }
  if (typeof update === 'object' && update !== null) {
    const kept = Object.entries(update).filter(([key]) => !PRIVATE_KEYS.has(key))
    return Object.fromEntries([...kept, ...own])
  }
  if ((update === undefined || update === null) && state !== undefined) {
    return { _planGuardState: state }
  }
  // A root value (a graph without channels), or nothing to write: left as it is.
  return undefined
}

/**
 * A tool's answer as a `Command` that also writes the run's state; without a state (the store
 * could not save it), the answer as it is, minus any write of the guard's keys.
 */
export function withRunState(
  response: ToolMessage | Command,
  state: PlanGuardRunState | undefined,
): ToolMessage | Command {
  if (ToolMessage.isInstance(response)) {
    return state === undefined
      ? response
      : new Command({ update: { messages: [response], _planGuardState: state } })
  }
  // An update for a parent graph cannot carry this graph's state; the next write will.
  if (response.graph === Command.PARENT) return response
  const merged = mergedUpdate(response.update, state)
  if (merged === undefined) return response
  return new Command({
    update: merged as Record<string, unknown>,
    goto: response.goto,
    ...(response.graph === undefined ? {} : { graph: response.graph }),
    ...(response.resume === undefined ? {} : { resume: response.resume }),
  })
}
