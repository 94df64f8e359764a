import {
  type CallDecisionEvent,
  type GuardStore,
  PlanError,
  type PlanGuard,
  type RetryInterrupted,
  type RunKeys,
} from '@plan/core'
import type { Tool, ToolExecutionOptions, ToolSet } from 'ai'
import { type CallDecision, decideForExecution } from '../session/decide-call.js'
import { denialError } from '../session/denial.js'
import type { AllowedResult } from '../session/guard-session.js'
import { sessionOf } from '../session/guard-session.js'
import { takeAsked } from '../session/human-review.js'
import { reportDecision } from '../telemetry/report-decision.js'
import { beginDurableCall, type DurableRun, durableRun, endDurableCall } from './durable-calls.js'

/** Options for {@link guardTools}. */
export interface GuardToolsOptions {
  /** Called after every decision, before the tool runs (allowed) or the error is thrown (denied). */
  readonly onDecision?: (event: CallDecisionEvent) => void
  /**
   * Where the guard's state is written before every tool call starts (write-ahead) and after it
   * ends, and where shared budgets are counted (`@plan/postgres`). Needs `runId`. Resume a run
   * with `createPlanGuard(plan, { compiler, state: (await store.load(runId))?.state })`.
   * `createSignedGuardStore` of `@plan/core` wraps it so that a state edited in the store is refused.
   */
  readonly store?: GuardStore
  /** The run's id in `store`. */
  readonly runId?: string
  /** The run's keys for the policy's shared budgets, e.g. `{ tenant: 'acme' }`. */
  readonly keys?: RunKeys
  /**
   * Asked when a call that a crash interrupted comes again; true runs it again (a human
   * approved). Without it, such a call is denied with `interrupted_call` (at-most-once),
   * unless the policy marks its tool `idempotent`.
   */
  readonly retryInterrupted?: RetryInterrupted
}

type Execute = (input: unknown, options: ToolExecutionOptions<unknown>) => unknown
type AnyTool = Tool<unknown, unknown, unknown> & { execute?: Execute; isProviderExecuted?: boolean }

const guardedBy = Symbol.for('@plan/ai-sdk.guardedBy')

/** True when `tool` was wrapped by {@link guardTools} with this guard. */
export function isGuardedBy(tool: unknown, guard: PlanGuard): boolean {
  return (
    typeof tool === 'object' &&
    tool !== null &&
    (tool as Record<symbol, unknown>)[guardedBy] === guard
  )
}

function isAsyncGeneratorFunction(value: unknown): boolean {
  return Object.prototype.toString.call(value) === '[object AsyncGeneratorFunction]'
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<AsyncIterable<unknown>>)[Symbol.asyncIterator] === 'function'
  )
}

function setupError(name: string, reason: string): PlanError {
  return new PlanError(`guardTools cannot guard the tool "${name}": ${reason}`, {
    code: 'invalid_configuration',
  })
}

/** The tool's own `execute`; throws for a tool that no wrapper can intercept. */
function executeOf(name: string, tool: AnyTool): Execute {
  if (typeof tool !== 'object' || tool === null) throw setupError(name, 'it is not a tool object.')
  if (tool.type === 'provider' && tool.isProviderExecuted === true) {
    throw setupError(
      name,
      'it is executed by the model provider, where no wrapper can intercept its calls. Remove it from the tool set.',
    )
  }
  const execute = tool.execute
  if (typeof execute !== 'function') {
    throw setupError(
      name,
      'it has no execute function, so its calls would reach your code without a check. Give it an execute function or leave it out.',
    )
  }
  return execute
}

/** What a guarded `execute` works with: the tool's name, the guard, and how to approve and run. */
interface GuardedCall {
  readonly name: string
  readonly guard: PlanGuard
  readonly durable: DurableRun
  /** Decides a call and reports the decision: the approved step, or throws its denial. */
  readonly authorize: (
    input: unknown,
    executionOptions: ToolExecutionOptions<unknown> | undefined,
  ) => Promise<AllowedResult>
  /** Runs the tool's own `execute`. */
  readonly run: Execute
}

/** The decision with the durable run's start: a call the store refuses to start is denied. */
async function startedDurably(
  guard: PlanGuard,
  durable: DurableRun,
  name: string,
  decision: CallDecision,
): Promise<CallDecision> {
  if (!decision.allowed) return decision
  const issues = await beginDurableCall(guard, durable, name, decision.result.stepId)
  return issues.length > 0 ? { allowed: false, issues, turnRejected: false } : decision
}

/**
 * Authorizes each call of the tool `name`, started on the durable run when there is one. The
 * decision's promise is followed with `then`, not awaited in an async function of its own.
 */
function createCallAuthorizer(
  name: string,
  guard: PlanGuard,
  options: GuardToolsOptions,
  durable: DurableRun,
): GuardedCall['authorize'] {
  return (input, executionOptions) => {
    try {
      const callId = executionOptions?.toolCallId
      const humanApproved = takeAsked(guard, callId)
      const decided = decideForExecution(guard, {
        tool: name,
        args: input,
        callId,
        ...(humanApproved ? { humanApproved } : {}),
      })
      const report = (decision: CallDecision): AllowedResult => {
        const event: CallDecisionEvent = {
          kind: 'call',
          tool: name,
          callId,
          args: input,
          allowed: decision.allowed,
          stepId: decision.allowed ? decision.result.stepId : undefined,
          issues: decision.allowed ? [] : decision.issues,
        }
        reportDecision(event, options.onDecision)
        if (!decision.allowed) throw denialError(guard, name, decision)
        return decision.result
      }
      // a run without a store or shared budgets has nothing to count or write: no await
      return durable.durable
        ? decided.then((decision) => startedDurably(guard, durable, name, decision)).then(report)
        : decided.then(report)
    } catch (error) {
      return Promise.reject(error)
    }
  }
}

/**
 * The guarded `execute` of a streaming tool: it stays an async iterable so the SDK still
 * reports preliminary results; the last value is the step's output.
 */
function streamingExecute({ name, guard, durable, authorize, run }: GuardedCall): Execute {
  return async function* (input, executionOptions) {
    const approved = await authorize(input, executionOptions)
    let state: 'running' | 'finished' | 'failed' = 'running'
    let last: unknown
    try {
      for await (const output of run(approved.args, executionOptions) as AsyncIterable<unknown>) {
        last = output
        yield output
      }
      state = 'finished'
    } catch (error) {
      state = 'failed'
      guard.fail(approved.stepId, error)
      throw error
    } finally {
      if (state === 'running') {
        guard.fail(
          approved.stepId,
          new PlanError(`The "${name}" tool stopped before it finished.`, {
            code: 'step_failed',
          }),
        )
      }
      if (state !== 'finished' && durable.durable) await endDurableCall(guard, durable)
    }
    guard.complete(approved.stepId, last)
    if (durable.durable) await endDurableCall(guard, durable)
  }
}

/** The guarded `execute` of a tool that returns its output (or an iterable of which the last counts). */
function returningExecute({ guard, durable, authorize, run }: GuardedCall): Execute {
  return async (input, executionOptions) => {
    const approved = await authorize(input, executionOptions)
    let output: unknown
    try {
      const value = run(approved.args, executionOptions)
      if (isAsyncIterable(value)) {
        // a plain function returning an iterable: the SDK's final output is the last value
        for await (const item of value) output = item
      } else {
        output = await value
      }
    } catch (error) {
      guard.fail(approved.stepId, error)
      if (durable.durable) await endDurableCall(guard, durable)
      throw error
    }
    guard.complete(approved.stepId, output)
    if (durable.durable) await endDurableCall(guard, durable)
    return output
  }
}

/** `tool` with every call authorized by `guard`; the tool itself when `guard` already guards it. */
function wrapTool(
  name: string,
  tool: AnyTool,
  guard: PlanGuard,
  options: GuardToolsOptions,
  durable: DurableRun,
): AnyTool {
  const execute = executeOf(name, tool)
  if (isGuardedBy(tool, guard)) return tool
  const call: GuardedCall = {
    name,
    guard,
    durable,
    authorize: createCallAuthorizer(name, guard, options, durable),
    run: (args, executionOptions) => execute.call(tool, args, executionOptions),
  }
  const guardedExecute = isAsyncGeneratorFunction(execute)
    ? streamingExecute(call)
    : returningExecute(call)
  // enumerable, so copies of the tool made by the SDK (`{ ...tool }`) keep the mark
  const guarded: Record<string | symbol, unknown> = { ...tool, execute: guardedExecute }
  guarded[guardedBy] = guard
  return guarded as AnyTool
}

/**
 * Wraps every tool of an AI SDK tool set so that each call is authorized by a `@plan` guard
 * before it runs. This is the authoritative check: a denied call throws a `PlanError`
 * carrying the issues (the SDK reports it to the model as a tool error) and the tool never
 * runs. An allowed call runs with the guard's arguments; its output or failure is reported
 * back to the guard.
 *
 * Throws a `PlanError` at setup for tools that no wrapper can intercept: provider-executed
 * tools and tools without `execute`.
 *
 * @example
 * ```ts
 * const compiler = await createPlanCompiler(policy)
 * const guard = createPlanGuard(compiler.compile(plan), { compiler })
 * const result = await generateText({ model, tools: guardTools(tools, guard), prompt })
 * ```
 */
export function guardTools<TOOLS extends ToolSet>(
  tools: TOOLS,
  guard: PlanGuard,
  options: GuardToolsOptions = {},
): TOOLS {
  if (options.store !== undefined && (typeof options.runId !== 'string' || options.runId === '')) {
    throw new PlanError('guardTools needs a runId with a store.', { code: 'invalid_configuration' })
  }
  const durable = durableRun(guard, options.store, options.runId, options.keys)
  if (options.retryInterrupted !== undefined)
    sessionOf(guard).retryInterrupted = options.retryInterrupted
  const guarded: Record<string, AnyTool> = {}
  for (const [name, tool] of Object.entries(tools)) {
    guarded[name] = wrapTool(name, tool as AnyTool, guard, options, durable)
  }
  return guarded as TOOLS
}
