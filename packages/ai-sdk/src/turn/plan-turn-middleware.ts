import type { PlanGuard, PlanIssue, TurnDecisionEvent } from '@plan/core'
import { asSchema, type LanguageModelMiddleware, type Schema, type Tool, type ToolSet } from 'ai'
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

/** What a tool's input check concluded: the input the tool will receive, or none (invalid). */
type Checked = { readonly value: unknown } | undefined

/** A tool's input check, or null when its schema has none; undefined for an unknown tool. */
type Validate = ((value: unknown) => Checked | PromiseLike<Checked>) | null

// A tool set's schemas are the same objects run after run: each is wrapped once, not per run.
const validators = new WeakMap<object, Validate>()

interface StandardSchema {
  readonly '~standard': {
    readonly validate: (value: unknown) => StandardResult | PromiseLike<StandardResult>
  }
}
type StandardResult =
  | { readonly value: unknown; readonly issues?: undefined }
  | { readonly issues: readonly unknown[] }

// The SDK's mark of its own schemas (`jsonSchema`, `zodSchema`): they are asked through `asSchema`.
const sdkSchema = Symbol.for('vercel.ai.schema')

function isStandardSchema(schema: object): schema is StandardSchema {
  if (sdkSchema in schema) return false
  const standard = (schema as { readonly '~standard'?: { readonly validate?: unknown } })[
    '~standard'
  ]
  return (
    typeof standard === 'object' && standard !== null && typeof standard.validate === 'function'
  )
}

function fromStandard(result: StandardResult): Checked {
  return result.issues === undefined ? { value: result.value } : undefined
}

function fromSchema(result: Awaited<ReturnType<NonNullable<Schema['validate']>>>): Checked {
  return result.success ? { value: result.value } : undefined
}

function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as Partial<PromiseLike<T>> | undefined)?.then === 'function'
}

/**
 * The check the SDK makes of a tool's input. A Standard Schema (zod) is asked directly, as the
 * SDK asks it (`safeParseAsync` runs the same checks): without a promise when the schema has
 * no async part, so a turn of plain schemas is submitted in the step that received it.
 */
function validatorOfSchema(inputSchema: Tool['inputSchema']): Validate {
  const schema: unknown = inputSchema
  if (typeof schema === 'object' && schema !== null && isStandardSchema(schema)) {
    const standard = schema['~standard']
    return (value) => {
      const result = standard.validate(value)
      return isPromiseLike(result)
        ? Promise.resolve(result).then(fromStandard)
        : fromStandard(result)
    }
  }
  const validate = asSchema(inputSchema).validate
  if (validate === undefined) return null
  return (value) => {
    const result = validate(value)
    return isPromiseLike(result) ? Promise.resolve(result).then(fromSchema) : fromSchema(result)
  }
}

/** Each tool's input check, made from its schema at the first call of any tool using it. */
function validatorsOf(tools: ToolSet): (name: string) => Validate | undefined {
  return (name) => {
    if (!Object.hasOwn(tools, name)) return undefined
    const tool = tools[name]
    if (tool === undefined) return undefined
    const schema: unknown = tool.inputSchema
    if ((typeof schema !== 'object' && typeof schema !== 'function') || schema === null)
      return validatorOfSchema(tool.inputSchema)
    let validate = validators.get(schema)
    if (validate === undefined) {
      validate = validatorOfSchema(tool.inputSchema)
      validators.set(schema, validate)
    }
    return validate
  }
}

/** The call as a step's source, with the input its tool will receive; undefined when it will not run. */
function parseCall(
  call: ModelToolCall,
  validatorOf: ((name: string) => Validate | undefined) | undefined,
): ToolCallLike | undefined | PromiseLike<ToolCallLike | undefined> {
  let value: unknown
  try {
    const text = typeof call.input === 'string' ? call.input : ''
    value = text.trim() === '' ? {} : JSON.parse(text)
  } catch {
    return undefined
  }
  const validate = validatorOf === undefined ? null : validatorOf(call.toolName)
  if (validate === undefined) return undefined
  if (validate === null)
    return { toolCallId: call.toolCallId, toolName: call.toolName, input: value }
  const withInput = (checked: Checked): ToolCallLike | undefined =>
    checked === undefined
      ? undefined
      : { toolCallId: call.toolCallId, toolName: call.toolName, input: checked.value }
  const checked = validate(value)
  return isPromiseLike(checked) ? Promise.resolve(checked).then(withInput) : withInput(checked)
}

/** Every call that its tool will run, parsed; a promise only when a schema's check is async. */
function parseCalls(
  calls: readonly ModelToolCall[],
  validatorOf: ((name: string) => Validate | undefined) | undefined,
): ToolCallLike[] | Promise<ToolCallLike[]> {
  const parsed: (ToolCallLike | undefined | PromiseLike<ToolCallLike | undefined>)[] = []
  let pending = false
  for (const call of calls) {
    const result = parseCall(call, validatorOf)
    pending ||= isPromiseLike(result)
    parsed.push(result)
  }
  const kept = (results: readonly (ToolCallLike | undefined)[]) =>
    results.includes(undefined)
      ? results.filter((result): result is ToolCallLike => result !== undefined)
      : (results as ToolCallLike[])
  return pending ? Promise.all(parsed).then(kept) : kept(parsed as (ToolCallLike | undefined)[])
}

/**
 * Submits one model response's batch of tool calls to the guard as a plan (per-turn mode).
 * Every call of a rejected batch is then denied with the plan's issues.
 */
function submitTurn(
  guard: PlanGuard,
  calls: readonly ModelToolCall[],
  validatorOf: ((name: string) => Validate | undefined) | undefined,
  onDecision: PlanTurnMiddlewareOptions['onDecision'],
): void | Promise<void> {
  const own = calls.some((call) => call.providerExecuted === true)
    ? calls.filter((call) => call.providerExecuted !== true)
    : calls
  if (own.length === 0) return
  releaseStaleReservations(guard)
  const parsed = parseCalls(own, validatorOf)
  if (!Array.isArray(parsed))
    return parsed.then((calls) => submitParsed(guard, own, calls, onDecision))
  submitParsed(guard, own, parsed, onDecision)
}

/** Submits a batch's parsed calls as the turn's plan and reports the decision. */
function submitParsed(
  guard: PlanGuard,
  own: readonly ModelToolCall[],
  parsed: readonly ToolCallLike[],
  onDecision: PlanTurnMiddlewareOptions['onDecision'],
): void {
  const session = sessionOf(guard)
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
): LanguageModelMiddleware &
  Required<Pick<LanguageModelMiddleware, 'wrapGenerate' | 'wrapStream'>> {
  const validatorOf = options.tools === undefined ? undefined : validatorsOf(options.tools)
  return {
    specificationVersion: 'v4',
    // The response's promise is followed with `then`, not awaited in an async function.
    wrapGenerate: ({ doGenerate }) => {
      try {
        return Promise.resolve(doGenerate()).then((result) => {
          const calls = result.content.filter(isModelToolCall)
          // a response without tool calls (the model's answer) has no batch: nothing to await
          const submitted =
            calls.length > 0 ? submitTurn(guard, calls, validatorOf, options.onDecision) : undefined
          return submitted === undefined ? result : submitted.then(() => result)
        })
      } catch (error) {
        return Promise.reject(error)
      }
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
