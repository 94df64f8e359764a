import type { PlanIssue, TurnDecisionEvent } from '@plan/core'
import { runEndedText } from '@plan/core/adapter'
import type { LanguageModelMiddleware } from 'ai'

const TOOL_PARTS = new Set(['tool-call', 'tool-input-start', 'tool-input-delta', 'tool-input-end'])

/** The fields of a model's answer part that this middleware reads. */
interface PartFields {
  readonly type?: unknown
  readonly text?: unknown
  readonly delta?: unknown
  readonly toolCallId?: unknown
}

/** True for the parts of a model's answer that ask for or stream a tool call. */
function isToolPart(part: unknown): boolean {
  return TOOL_PARTS.has(String((part as PartFields | null)?.type))
}

/** True for a part that carries some of the answer's text. */
function isText(part: unknown): boolean {
  const value = part as PartFields | null
  const text = value?.type === 'text' ? value.text : value?.type === 'text-delta' ? value.delta : ''
  return typeof text === 'string' && text.trim() !== ''
}

/**
 * Model middleware for the step after the guard stopped the run: the model was told why and
 * given no tools. Tool calls it asks for anyway are dropped from its answer and reported as a
 * rejected turn with the stop issue; an answer left without text becomes
 * {@link runEndedText}, the closing text every adapter gives.
 */
export function lastWordMiddleware(
  stop: PlanIssue,
  onDecision: ((event: TurnDecisionEvent) => void) | undefined,
): LanguageModelMiddleware {
  const report = (callIds: readonly string[]) => {
    if (callIds.length > 0) onDecision?.({ kind: 'turn', allowed: false, callIds, issues: [stop] })
  }
  const text = runEndedText([stop])
  return {
    specificationVersion: 'v4',
    wrapGenerate: async ({ doGenerate }) => {
      const result = await doGenerate()
      const calls = result.content.filter((part) => part.type === 'tool-call')
      if (calls.length === 0) return result
      report(calls.map((call) => call.toolCallId))
      const kept = result.content.filter((part) => part.type !== 'tool-call')
      const content = kept.some(isText) ? kept : [...kept, { type: 'text' as const, text }]
      return { ...result, content, finishReason: { unified: 'stop', raw: 'stop' } }
    },
    wrapStream: async ({ doStream }) => {
      const { stream, ...rest } = await doStream()
      type Part = typeof stream extends ReadableStream<infer P> ? P : never
      const dropped = new Set<string>()
      let answered = false
      const transformed = stream.pipeThrough(
        new TransformStream<Part, Part>({
          transform(part, controller) {
            if (isToolPart(part)) {
              const fields = part as PartFields
              if (fields.type === 'tool-call' && typeof fields.toolCallId === 'string')
                dropped.add(fields.toolCallId)
              return
            }
            if (isText(part)) answered = true
            if ((part as PartFields).type === 'finish' && dropped.size > 0) {
              report([...dropped])
              if (!answered) {
                controller.enqueue({ type: 'text-start', id: 'plan-run-ended' } as Part)
                controller.enqueue({
                  type: 'text-delta',
                  id: 'plan-run-ended',
                  delta: text,
                } as Part)
                controller.enqueue({ type: 'text-end', id: 'plan-run-ended' } as Part)
              }
              const stopped = {
                ...(part as object),
                finishReason: { unified: 'stop', raw: 'stop' },
              }
              controller.enqueue(stopped as Part)
              return
            }
            controller.enqueue(part)
          },
        }),
      )
      return { stream: transformed, ...rest }
    },
  }
}
