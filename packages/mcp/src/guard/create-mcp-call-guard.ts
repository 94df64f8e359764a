import {
  type AdapterOptions,
  type AuditSink,
  type AuthorizeResult,
  allowedText,
  authorizeInterrupted,
  type CallDecisionEvent,
  type CompiledPlan,
  createPlanGuard,
  type GuardStore,
  isCompiledPlan,
  type JsonObject,
  type PlanCompiler,
  PlanError,
  type PlanGuard,
  type PlanGuardState,
  type PlanIssue,
  type RetryInterrupted,
  type RunKeys,
  resolveCompiler,
} from '@plan/core'
import { reportDecision } from '../telemetry/report-decision.js'
import { type AuthorizeMcpResource, createResourceAuthorizer } from './authorize-mcp-resource.js'
import { type DenialResult, denialResult } from './denial-result.js'
import { createDurableSession, type DurableSession } from './durable-session.js'
import {
  createResourceInspector,
  type McpResourcesMode,
  type ResourceCheck,
  resourceCheckOf,
} from './resource-check.js'

/**
 * Options shared by the proxy and the client guard: the options every `@plan` adapter takes
 * (exactly one of `policy` or `compiler`; `plan`, where every call must match a ready step of
 * it — without it, per-call mode, where each call is compiled as a one-step plan; and
 * `onDecision`), and the MCP guard's own {@link McpGuardSettings}.
 */
export type McpGuardOptions = AdapterOptions<McpDecisionEvent> & McpGuardSettings

/** The MCP guard's options beside the shared adapter options. */
export interface McpGuardSettings {
  /** Resume the run from `guard.snapshot()`. */
  readonly state?: PlanGuardState
  /** Check path arguments on disk (symlinks resolved) before a call runs. Default true. */
  readonly checkPathsOnDisk?: boolean
  /** Where every decision is written (see `createFileAuditSink` in `@plan/core/node`). */
  readonly audit?: AuditSink
  /**
   * A guard store (`@plan/postgres`) and the run's id in it: the guard's state is written before
   * every call is forwarded and after it ends, shared budgets are counted there, and, without
   * `state`, the run resumes from the state saved under `runId`. `createSignedGuardStore` of
   * `@plan/core` wraps it so that a state edited in the store is refused.
   */
  readonly store?: GuardStore
  readonly runId?: string
  /** The run's keys for the policy's shared budgets, e.g. `{ tenant: 'acme' }`. */
  readonly keys?: RunKeys
  /** Asked when a call a crash interrupted comes again; true forwards it again (ask a human). */
  readonly retryInterrupted?: RetryInterrupted
  /**
   * `resources/read` and `resources/subscribe`: `'pass'` (default) forwards them unchecked, as
   * the application, not the model, picks resources; `'workspace'` holds them to the path rule
   * of the tools: a `file:` URI must name a path that tools may read (inside the workspace,
   * outside `deny`, symbolic links resolved on disk), and other schemes are refused unless
   * `resourceSchemes` lists them. A refused request gets a JSON-RPC error naming the issues.
   * Each decision is audited, a read counts as a call against `budgets.maxCalls`, and what it
   * returns is labelled for trust as a tool's output is.
   */
  readonly resources?: McpResourcesMode
  /** With `resources: 'workspace'`: URI schemes passed unchecked besides `file:`, e.g. `['https']`. */
  readonly resourceSchemes?: readonly string[]
}

/**
 * One decision about a `tools/call`: core's `CallDecisionEvent`, the event every adapter
 * reports (MCP has no turns). `callId` is the JSON-RPC id of the request, as text.
 */
export type McpDecisionEvent = CallDecisionEvent

/** An allowed call: run it with `args`, then report how it ended. */
export interface AllowedMcpCall {
  readonly allowed: true
  readonly stepId: string
  /** The arguments to send to the server (paths as checked on disk). */
  readonly args: JsonObject
  /**
   * Reports the server's `tools/call` result: its output and trust label are recorded. In plan
   * mode an `isError` result fails the step (its dependents will not run).
   */
  finish(result: unknown): void
  /** Reports that the call did not produce a result (error response, cancellation, closed). */
  fail(error: unknown): void
}

/** A refused call and the tool result to answer it with. */
export interface RefusedMcpCall {
  readonly allowed: false
  readonly issues: readonly PlanIssue[]
  readonly result: DenialResult
}

/** The guard of one MCP session: which tools are shown, and a decision per call. */
export interface McpCallGuard {
  readonly guard: PlanGuard
  readonly compiler: PlanCompiler
  readonly mode: 'plan' | 'call'
  /** True when the policy lists the tool, so `tools/list` may show it. */
  isToolAllowed(name: string): boolean
  /** Authorizes one `tools/call`; never throws. `callId` is reported in the decision event. */
  authorize(tool: string, args: unknown, callId?: string): Promise<AllowedMcpCall | RefusedMcpCall>
  /**
   * With `resources: 'workspace'`, checks the `uri` of a `resources/read` or
   * `resources/subscribe`: the refusal, or undefined when it may go. Absent in `'pass'` mode.
   */
  readonly checkResource: ResourceCheck | undefined
  /**
   * With `resources: 'workspace'`, decides about a `resources/read` or `resources/subscribe` as
   * {@link checkResource} does, then through the run: refused once the run has stopped, a read
   * counted against `budgets.maxCalls`, every decision audited, a read's content labelled for
   * trust once `finish` reports it. Absent in `'pass'` mode.
   */
  readonly authorizeResource: AuthorizeMcpResource | undefined
}

/** Issues of a one-step turn, located at the call (`args.path`) rather than the plan. */
function relocate(issues: readonly PlanIssue[]): PlanIssue[] {
  return issues.map((issue) => {
    const [first, second, ...rest] = issue.path
    const { stepId: _stepId, ...withoutStep } = issue
    return first === 'steps' && second === 0 ? { ...withoutStep, path: rest } : withoutStep
  })
}

function guardFailure(error: unknown): PlanIssue[] {
  const issues = PlanError.isInstance(error) ? error.issues : []
  if (issues.length > 0) return [...issues]
  return [{ code: 'invalid_plan', message: `The guard failed: ${String(error)}`, path: [] }]
}

function isErrorResult(result: unknown): boolean {
  return (
    typeof result === 'object' &&
    result !== null &&
    (result as { isError?: unknown }).isError === true
  )
}

/** The approved plan compiled, if there is one; throws for a plan the policy rejects. */
function compiledPlan(options: McpGuardOptions, compiler: PlanCompiler): CompiledPlan | undefined {
  if (options.plan === undefined) return undefined
  return isCompiledPlan(options.plan) ? options.plan : compiler.compile(options.plan)
}

/** The plan guard of one session: over `compiled`, if any, from `state`, if any. */
function sessionGuard(
  compiled: CompiledPlan | undefined,
  options: McpGuardOptions,
  compiler: PlanCompiler,
  state: PlanGuardState | undefined,
): PlanGuard {
  return createPlanGuard(compiled, {
    compiler,
    ...(state === undefined ? {} : { state }),
    ...(options.checkPathsOnDisk === undefined
      ? {}
      : { checkPathsOnDisk: options.checkPathsOnDisk }),
    ...(options.audit === undefined ? {} : { audit: options.audit }),
  })
}

/**
 * Creates the guard of one MCP session. In per-call mode each `tools/call` is compiled as a
 * one-step plan (`submitPlan(…, 'turn')`), so the policy's argument checks, budgets, loop
 * detection and trust labels apply to every call; in plan mode calls must match the plan.
 * The proxy, `guardMcpClient` and `guardMcpTransport` are built on it.
 *
 * @example
 * ```ts
 * const session = await createMcpCallGuard({ policy })
 * const decision = await session.authorize('read_text_file', { path: '../.ssh/id_rsa' })
 * if (decision.allowed) decision.finish(await callServer(decision.args))
 * else reply(decision.result) // { content: [{ type: 'text', text: '@plan denied …' }], isError: true }
 * ```
 */
export async function createMcpCallGuard(options: McpGuardOptions): Promise<McpCallGuard> {
  const compiler = await resolveCompiler(options, 'The MCP guard')
  const inspector = createResourceInspector(compiler, {
    mode: options.resources ?? 'pass',
    schemes: options.resourceSchemes,
    onDisk: options.checkPathsOnDisk !== false,
  })
  const compiled = compiledPlan(options, compiler)
  const durable: DurableSession = await createDurableSession(options)
  const state = options.state ?? durable.restored
  const guard = sessionGuard(compiled, options, compiler, state)
  const restoredPlanMode = state?.plan != null && state.mode !== 'turn'
  const mode = options.plan !== undefined || restoredPlanMode ? 'plan' : 'call'
  // step ids stay unique across a resumed run: a reused id with the same call would count as done
  let counter = Object.keys(state?.status ?? {}).length

  async function decide(tool: string, args: unknown): Promise<AuthorizeResult> {
    if (mode === 'plan')
      return authorizeInterrupted(guard, { tool, args }, options.retryInterrupted)
    counter += 1
    const stepId = `call-${counter}`
    const submitted = guard.submitPlan({ steps: [{ id: stepId, tool, args: args ?? {} }] }, 'turn')
    if (!submitted.success) {
      const issues = relocate(submitted.issues)
      return { allowed: false, issue: issues[0] as PlanIssue, issues }
    }
    // submitPlan and the reservation inside authorize run in one tick: parallel calls cannot interleave
    const result = await authorizeInterrupted(
      guard,
      { tool, args, stepId },
      options.retryInterrupted,
    )
    return result.allowed ? result : { ...result, issues: relocate(result.issues) }
  }

  /** What the model may call instead of a refused call; nothing once the run has stopped. */
  function allowedNow(): string {
    if (guard.stopReason() !== undefined) return ''
    return mode === 'plan' ? allowedText({ guard }) : allowedText({ compiler })
  }

  async function authorize(
    tool: string,
    args: unknown,
    callId?: string,
  ): Promise<AllowedMcpCall | RefusedMcpCall> {
    let result: AuthorizeResult
    try {
      result = await decide(tool, args)
      if (result.allowed) result = await durable.start(guard, tool, result)
    } catch (error) {
      const issues = guardFailure(error)
      result = { allowed: false, issue: issues[0] as PlanIssue, issues }
    }
    const issues = result.allowed ? [] : result.issues.length > 0 ? result.issues : [result.issue]
    reportDecision(
      {
        kind: 'call',
        tool,
        callId,
        args,
        allowed: result.allowed,
        stepId: result.allowed ? result.stepId : undefined,
        issues,
      },
      options.onDecision,
    )
    if (!result.allowed)
      return { allowed: false, issues, result: denialResult(tool, issues, allowedNow()) }
    const stepId = result.stepId
    return {
      allowed: true,
      stepId,
      args: result.args,
      finish: (output) => {
        // per-call mode keeps an error's text too: the model reads it, so its trust is tracked
        if (mode === 'plan' && isErrorResult(output))
          guard.fail(
            stepId,
            new PlanError(`The "${tool}" tool returned an error.`, { code: 'step_failed' }),
          )
        else guard.complete(stepId, output)
        durable.finish(guard)
      },
      fail: (error) => {
        guard.fail(stepId, error)
        durable.finish(guard)
      },
    }
  }

  return {
    guard,
    compiler,
    mode,
    isToolAllowed: (name) => compiler.policy.tools.has(name),
    authorize,
    checkResource: resourceCheckOf(inspector),
    authorizeResource:
      inspector === undefined ? undefined : createResourceAuthorizer(guard, inspector, durable),
  }
}
