import { MockLanguageModelV4 } from 'ai/test'

type GenerateResult = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>
type StreamResult = Awaited<ReturnType<MockLanguageModelV4['doStream']>>
type StreamPart = StreamResult['stream'] extends ReadableStream<infer Part> ? Part : never
export type CallOptions = Parameters<MockLanguageModelV4['doGenerate']>[0]

/** One tool call the scripted model makes. */
export interface ScriptedCall {
  readonly id: string
  readonly tool: string
  readonly input: unknown
}

/** One model response: tool calls, or a text answer. */
export type ScriptedTurn = { readonly calls: readonly ScriptedCall[] } | { readonly text: string }

/** What the model answers to its n-th call (0-based); after the script, it answers "done". */
export type Script =
  | readonly ScriptedTurn[]
  | ((index: number, options: CallOptions) => ScriptedTurn)

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
}

function turnAt(script: Script, index: number, options: CallOptions): ScriptedTurn {
  if (typeof script === 'function') return script(index, options)
  return script[index] ?? { text: 'done' }
}

function generateResult(turn: ScriptedTurn): GenerateResult {
  if ('text' in turn) {
    return {
      content: [{ type: 'text', text: turn.text }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage,
      warnings: [],
    }
  }
  return {
    content: turn.calls.map((call) => ({
      type: 'tool-call' as const,
      toolCallId: call.id,
      toolName: call.tool,
      input: JSON.stringify(call.input),
    })),
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage,
    warnings: [],
  }
}

function streamParts(turn: ScriptedTurn): StreamPart[] {
  const parts: StreamPart[] = [{ type: 'stream-start', warnings: [] }]
  if ('text' in turn) {
    parts.push(
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: turn.text },
      { type: 'text-end', id: 't' },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
    )
    return parts
  }
  for (const call of turn.calls) {
    const input = JSON.stringify(call.input)
    parts.push(
      { type: 'tool-input-start', id: call.id, toolName: call.tool },
      { type: 'tool-input-delta', id: call.id, delta: input },
      { type: 'tool-input-end', id: call.id },
      { type: 'tool-call', toolCallId: call.id, toolName: call.tool, input },
    )
  }
  parts.push({ type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage })
  return parts
}

/** A `MockLanguageModelV4` that plays a script, for both `doGenerate` and `doStream`. */
export function scriptedModel(script: Script): MockLanguageModelV4 {
  let calls = 0
  return new MockLanguageModelV4({
    doGenerate: async (options) => generateResult(turnAt(script, calls++, options)),
    doStream: async (options) => {
      const parts = streamParts(turnAt(script, calls++, options))
      return {
        stream: new ReadableStream<StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part)
            controller.close()
          },
        }),
      }
    },
  })
}

/** Every call the model received, generate and stream alike, in order. */
export function modelCalls(model: MockLanguageModelV4): CallOptions[] {
  return [...model.doGenerateCalls, ...model.doStreamCalls]
}

/** The prompt of the model's n-th call as JSON text, to search for what the model was told. */
export function promptOf(model: MockLanguageModelV4, index: number): string {
  const call = modelCalls(model)[index]
  return call === undefined ? '' : JSON.stringify(call.prompt)
}

/** The tool results the model was shown in its n-th call, by tool call id. */
export function toolResultsIn(model: MockLanguageModelV4, index: number): Map<string, unknown> {
  const results = new Map<string, unknown>()
  for (const message of modelCalls(model)[index]?.prompt ?? []) {
    if (message.role !== 'tool') continue
    for (const part of message.content) {
      if (part.type === 'tool-result') results.set(part.toolCallId, part.output)
    }
  }
  return results
}

/** Names of the tools the model was offered in its n-th call. */
export function toolsOfferedIn(model: MockLanguageModelV4, index: number): string[] {
  return (modelCalls(model)[index]?.tools ?? []).map((tool) => tool.name)
}
