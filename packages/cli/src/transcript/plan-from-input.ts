import { stepsFromToolCalls } from '@plan/core/adapter'

/** What `plan check` was given: a plan, or the tool calls of a LangChain or AI SDK run. */
export type InputKind = 'plan' | 'langchain' | 'ai-sdk'

/** The plan to check and where it came from. */
export interface PlanFromInput {
  readonly kind: InputKind
  readonly plan: unknown
}

interface Call {
  readonly id: unknown
  readonly tool: unknown
  readonly args: unknown
}

type Turn = { readonly kind: Exclude<InputKind, 'plan'>; readonly calls: readonly Call[] }

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}

function list(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : []
}

// LangChain `tool_calls` entries: `{ id, name, args }`.
function langChainCalls(value: unknown): Call[] {
  return list(value).map((entry) => {
    const call = record(entry) ?? {}
    return { id: call.id, tool: call.name, args: call.args }
  })
}

// AI SDK tool calls and `tool-call` content parts: `{ toolCallId, toolName, input }`.
function aiSdkCalls(value: unknown): Call[] {
  return list(value)
    .map((entry) => record(entry) ?? {})
    .filter((part) => part.type === undefined || part.type === 'tool-call')
    .map((part) => ({ id: part.toolCallId, tool: part.toolName, args: part.input }))
}

/** The tool calls one message or step carries, or undefined when it is not one. */
function turnOf(value: unknown): Turn | undefined {
  const message = record(value)
  if (message === undefined) return undefined
  // LangChain: an AIMessage, its `toDict()` form, or a stored message.
  const kwargs = message.lc === 1 ? record(message.kwargs) : undefined
  const data = message.type === 'ai' ? record(message.data) : undefined
  for (const source of [message, kwargs, data])
    if (source !== undefined && Array.isArray(source.tool_calls))
      return { kind: 'langchain', calls: langChainCalls(source.tool_calls) }
  // AI SDK: a step (`result.steps[i]`) or an assistant model message with tool-call parts.
  if (Array.isArray(message.toolCalls))
    return { kind: 'ai-sdk', calls: aiSdkCalls(message.toolCalls) }
  if (message.type === 'tool-call' && 'toolName' in message)
    return { kind: 'ai-sdk', calls: aiSdkCalls([message]) }
  if (message.role === 'assistant' && Array.isArray(message.content)) {
    const calls = aiSdkCalls(message.content.filter((part) => record(part)?.type === 'tool-call'))
    return { kind: 'ai-sdk', calls }
  }
  return undefined
}

/** The turns of a transcript, or undefined when the value is not one (then it is a plan). */
function turnsOf(value: unknown): Turn[] | undefined {
  const object = record(value)
  const messages = Array.isArray(value)
    ? value
    : Array.isArray(object?.messages)
      ? object.messages
      : object !== undefined && Array.isArray(object.steps) && object.steps.some(isStepWithCalls)
        ? object.steps
        : [value]
  const seen = messages.map(turnOf)
  // A plan's steps are never messages; a transcript's tool results and user turns are skipped.
  if (!seen.some((turn) => turn !== undefined)) return undefined
  return seen.filter((turn): turn is Turn => turn !== undefined)
}

function isStepWithCalls(value: unknown): boolean {
  return Array.isArray(record(value)?.toolCalls)
}

/**
 * Reads what `plan check` was given. A plan passes through unchanged. A LangChain transcript
 * (an `AIMessage` with `tool_calls`, a list of messages, or an agent state `{ messages }`, plain
 * or in `toDict()` form) or an AI SDK one (a `generateText` result's `steps` or `toolCalls`, or
 * `response.messages`) becomes a plan with `stepsFromToolCalls` of `@plan/core`: one step per
 * tool call, named by the tool call id when it is a valid and unique step id (else `call_<n>`),
 * each turn's calls depending on the previous turn's, since they ran after them.
 */
export function planFromInput(value: unknown): PlanFromInput {
  const turns = turnsOf(value)
  if (turns === undefined) return { kind: 'plan', plan: value }
  const calls = turns.flatMap((turn, index) =>
    turn.calls.map((call) => ({
      id: typeof call.id === 'string' ? call.id : undefined,
      // Passed as given: the compiler reports a tool name that is not a string.
      tool: call.tool as string,
      args: call.args ?? {},
      turn: index,
    })),
  )
  const kind = turns.some((turn) => turn.kind === 'langchain') ? 'langchain' : 'ai-sdk'
  return { kind, plan: { steps: stepsFromToolCalls(calls) } }
}
