import type { PlanGuard, PlanIssue, TurnDecisionEvent } from '@plan/core'
import { asSchema, type LanguageModelMiddleware, type Schema, type ToolSet } from 'ai'
import { stepsFromToolCalls, type ToolCallLike } from '../convert/steps-from-tool-calls.js'
import { releaseStaleReservations } from '../session/decide-call.js'
import { sessionOf } from '../session/guard-session.js'

/** Options for {@link planTurnMiddleware}. */
export interface PlanTurnMiddlewareOptions {
  /**
   * The tool set the calls are for. With it, each call's input is validated by its tool's
   * input schema first (so the plan holds exactly what the tool will receive), and calls the
   * SDK would not run (unknown tool, invalid input) stay out of the plan. Without it, every
   * call goes into the plan with its input as JSON.
   */
  readonly tools?: ToolSet
  /** Called with each turn's decision: its calls approved as a plan, or rejected with issues. */
  readonly onDecision?: ((event: TurnDecisionEvent) => void) | undefined
}

/** A tool call as a language model (V4) returns it: the input is JSON text. */
interface ModelToolCall {
  readonly type: 'tool-call'
  readonly toolCallId: string
  readonly toolName: string
  readonly input: string
  readonly providerExecuted?: boolean
}

function isModelToolCall(part: unknown): part is ModelToolCall {
  return (
    typeof part === 'object' &&
    part !== null &&
    (part as { type?: unknown }).type === 'tool-call' &&
    typeof (part as { toolCallId?: unknown }).toolCallId === 'string' &&
    typeof (part as { toolName?: unknown }).toolName === 'string'
  )
}

/** A tool's input validator, or null when its schema has none; undefined for an unknown tool. */
type Validate = NonNullable<Schema['validate']> | null

// A tool set's schemas are the same objects run after run: each is wrapped once, not per run.
const validators = new WeakMap<object, Validate>()

/** Each tool's input validator, wrapped from its schema at the first call of any tool using it. */
function validatorsOf(tools: ToolSet): (name: string) => Validate | undefined {
  return (name) => {
    if (!Object.hasOwn(tools, name)) return undefined
    const tool = tools[name]
    if (tool === undefined) return undefined
    const schema: unknown = tool.inputSchema
    if ((typeof schema !== 'object' && typeof schema !== 'function') || schema === null)
      return asSchema(tool.inputSchema).validate ?? null
    let validate = validators.get(schema)
    if (validate === undefined) {
      validate = asSchema(tool.inputSchema).validate ?? null
      validators.set(schema, validate)
    }
    return validate
  }
}

async function parseCall(
  call: ModelToolCall,
  validatorOf: ((name: string) => Validate | undefined) | undefined,
): Promise<ToolCallLike | undefined> {
  let value: unknown
  try {
    const text = typeof call.input === 'string' ? call.input : ''
    value = text.trim() === '' ? {} : JSON.parse(text)
  } catch {
    return undefined
  }
  if (validatorOf === undefined)
    return { toolCallId: call.toolCallId, toolName: call.toolName, input: value }
  const validate = validatorOf(call.toolName)
  if (validate === undefined) return undefined
  if (validate === null)
    return { toolCallId: call.toolCallId, toolName: call.toolName, input: value }
  const result = await validate(value)
  return result.success
    ? { toolCallId: call.toolCallId, toolName: call.toolName, input: result.value }
    : undefined
}

/**
 * Submits one model response's batch of tool calls to the guard as a plan (per-turn mode).
 * Every call of a rejected batch is then denied with the plan's issues.
 */
async function submitTurn(
  guard: PlanGuard,
  calls: readonly ModelToolCall[],
  validatorOf: ((name: string) => Validate | undefined) | undefined,
  onDecision: PlanTurnMiddlewareOptions['onDecision'],
): Promise<void> {
  const own = calls.filter((call) => call.providerExecuted !== true)
  if (own.length === 0) return
  const session = sessionOf(guard)
  releaseStaleReservations(guard)
  const parsed: ToolCallLike[] = []
  for (const call of own) {
    const result = await parseCall(call, validatorOf)
    if (result !== undefined) parsed.push(result)
  }
  const steps = stepsFromToolCalls(parsed)
  const stepIds = new Map(parsed.map((call, index) => [call.toolCallId, steps[index]?.id ?? '']))
  let accepted = false
  let issues: readonly PlanIssue[] = []
  try {
    const result = guard.submitPlan({ steps }, 'turn')
    accepted = result.success
    issues = result.issues
  } catch (error) {
    issues = [
      {
        code: 'invalid_plan',
        message: `The guard could not take this turn's plan: ${String(error)}`,
        path: [],
      },
    ]
  }
  session.turn = { accepted, issues, stepIds }
  onDecision?.({
    kind: 'turn',
    allowed: accepted,
    callIds: own.map((call) => call.toolCallId),
    issues: accepted ? [] : issues,
  })
}

/**
 * Language model middleware for per-turn mode: it sees each model response's whole batch of
 * tool calls before the SDK runs any of them, and submits the batch to the guard as one plan
 * (`guard.submitPlan(steps, 'turn')`). The tool wrappers then only run calls of an accepted
 * batch. {@link planPrepareStep} installs it for you; use it directly with
 * `wrapLanguageModel` when you do not use `prepareStep`.
 *
 * @example
 * ```ts
 * const model = wrapLanguageModel({ model: baseModel, middleware: planTurnMiddleware(guard, { tools }) })
 * ```
 */
export function planTurnMiddleware(
  guard: PlanGuard,
  options: PlanTurnMiddlewareOptions = {},
): LanguageModelMiddleware {
  const validatorOf = options.tools === undefined ? undefined : validatorsOf(options.tools)
  return {
    specificationVersion: 'v4',
    wrapGenerate: async ({ doGenerate }) => {
      const result = await doGenerate()
      const calls = result.content.filter(isModelToolCall)
      // a response without tool calls (the model's answer) has no batch: nothing to await
      if (calls.length > 0) await submitTurn(guard, calls, validatorOf, options.onDecision)
      return result
    },
    wrapStream: async ({ doStream }) => {
      const { stream, ...rest } = await doStream()
      type Part = typeof stream extends ReadableStream<infer P> ? P : never
      const held: Part[] = []
      let released = false
      const release = async (controller: TransformStreamDefaultController<Part>) => {
        if (released) return
        released = true
        await submitTurn(guard, held.filter(isModelToolCall), validatorOf, options.onDecision)
        for (const part of held) controller.enqueue(part)
        held.length = 0
      }
      const transformed = stream.pipeThrough(
        new TransformStream<Part, Part>({
          async transform(part, controller) {
            if (isModelToolCall(part) && !released) {
              // hold tool calls until the batch is complete
              held.push(part)
              return
            }
            if ((part as { type?: unknown }).type === 'finish') await release(controller)
            controller.enqueue(part)
          },
          async flush(controller) {
            await release(controller)
          },
        }),
      )
      return { stream: transformed, ...rest }
    },
  }
}
