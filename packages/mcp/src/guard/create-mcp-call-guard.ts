import {
  type AdapterGuardSettings,
  type AdapterOptions,
  type AuthorizeResult,
  type CallDecisionEvent,
  type CompiledPlan,
  createPlanGuard,
  type JsonObject,
  type PlanCompiler,
  PlanError,
  type PlanGuard,
  type PlanGuardState,
  type PlanIssue,
} from '@plan/core'
import {
  allowedText,
  authorizeInterrupted,
  hashJson,
  isCompiledPlan,
  resolveCompiler,
} from '@plan/core/adapter'
import { reportDecision } from '../telemetry/report-decision.js'
import { denyFilteredResult } from '../tools/deny-filtered-result.js'
import { type ServerNames, serverNames } from '../tools/server-names.js'
import { ToolListing, type ToolListResult, type WithheldTool } from '../tools/tool-listing.js'
import { type AuthorizeMcpResource, createResourceAuthorizer } from './authorize-mcp-resource.js'
import { type DenialResult, denialResult } from './denial-result.js'
import { createDurableSession, type DurableSession } from './durable-session.js'
import { createPromptInspector, promptUri } from './prompt-check.js'
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
 * `onDecision`, with core's `CallDecisionEvent`: MCP has no turns, and `callId` is the JSON-RPC
 * id of the request, as text), the guard settings every adapter takes (`checkPathsOnDisk`,
 * `audit`, `store`, `keys`, `retryInterrupted`), and the MCP guard's own {@link McpGuardSettings}.
 */
export type McpGuardOptions = AdapterOptions<CallDecisionEvent> &
  AdapterGuardSettings &
  McpGuardSettings

/** The MCP guard's options beside the shared adapter options. */
export interface McpGuardSettings {
  /** Resume the run from `guard.snapshot()`. */
  readonly state?: PlanGuardState
  /** The run's id in `store`; without `state`, the run resumes from the state saved under it. */
  readonly runId?: string
  /**
   * `resources/read` and `resources/subscribe`: `'policy'` (default) lets through only the URI
   * schemes the policy's `mcp.resources` lists (none: every request is refused), a `file:` URI
   * only when it names a path that tools may read (inside the workspace, outside `deny`,
   * symbolic links resolved on disk); `'workspace'` lets through `file:` URIs so checked and
   * the schemes of `resourceSchemes`; `'pass'` forwards them unchecked. A refused request gets
   * a JSON-RPC error naming the issues. Each decision is audited, a read counts as a call
   * against `budgets.maxCalls`, and what it returns is labelled for trust as a tool's output is.
   */
  readonly resources?: McpResourcesMode
  /** With `resources: 'workspace'`: URI schemes passed unchecked besides `file:`, e.g. `['https']`. */
  readonly resourceSchemes?: readonly string[]
  /**
   * The server's name when several servers share one policy: its tools and prompts are then
   * the policy's `<server>__<name>` entries, and the client sees and calls them by those
   * names, so one server's tool never takes another's entry. Letters, digits and inner `-`.
   */
  readonly serverName?: string
  /**
   * Told of the tools a `tools/list` answer held back from the client (each once per
   * definition): listed by the policy, their definition differs from its `pin`, or it has none
   * under `mcp.requirePins`. Each is also written to the audit log as a `tool_withheld` event.
   */
  readonly onToolWithheld?: (tools: readonly WithheldTool[]) => void
}

/** An allowed call: run it with `args`, then report how it ended. */
export interface AllowedMcpCall {
  readonly allowed: true
  readonly stepId: string
  /** The tool's name as the server knows it (without the server's name). */
  readonly serverTool: string
  /** The arguments to send to the server (paths as checked on disk). */
  readonly args: JsonObject
  /**
   * Reports the server's `tools/call` result and returns it as the client is to get it (a
   * listing tool's result without the names `deny` protects): that is what is recorded, with
   * its trust label. In plan mode an `isError` result fails the step (its dependents will not
   * run). `deliver`, when given, is handed that result first and the record follows at once,
   * in the same turn of the event loop: a proxy sends the answer without waiting for the
   * record, and no later call is decided before it.
   */
  finish(result: unknown, deliver?: (result: unknown) => void): unknown
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
  /** The names of the server's tools and prompts in the policy (see `server`). */
  readonly names: ServerNames
  /** True when the policy lists the tool (its name in the policy), so `tools/list` may show it. */
  isToolAllowed(name: string): boolean
  /**
   * One page of the server's `tools/list` answer as the client is to get it: the tools the
   * policy allows whose definitions match their pins, with the policy's argument schema;
   * the tools withheld are reported (`onToolWithheld`, audit) and returned too.
   */
  listTools(result: unknown): ToolListResult
  /** The server sent `notifications/tools/list_changed`: pinned tools wait for a new listing. */
  toolsChanged(): void
  /** True when a call of `tool` waits for the server's tools to be listed again. */
  needsListing(tool: string): boolean
  /**
   * Decides about a `prompts/get` of `name` (as the client names it): refused unless the
   * policy's `mcp.prompts` lists it; counted, audited and labelled for trust as a read.
   */
  readonly authorizePrompt: (name: unknown) => ReturnType<AuthorizeMcpResource>
  /** Authorizes one `tools/call`; never throws. `callId` is reported in the decision event. */
  authorize(tool: string, args: unknown, callId?: string): Promise<AllowedMcpCall | RefusedMcpCall>
  /**
   * Unless `resources: 'pass'`, checks the `uri` of a `resources/read` or
   * `resources/subscribe`: the refusal, or undefined when it may go. Absent in `'pass'` mode.
   */
  readonly checkResource: ResourceCheck | undefined
  /**
   * Unless `resources: 'pass'`, decides about a `resources/read` or `resources/subscribe` as
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

/** The arguments' hash as audited, or null for a value that is not JSON. */
function argsHashOf(args: unknown): string | null {
  try {
    return hashJson(args ?? {})
  } catch {
    return null
  }
}

/**
 * Why a call of `tool` (as the client names it) is refused before the plan guard sees it: a
 * name that is not this server's, or a pinned tool whose listing did not match its pin.
 */
function listingIssue(tool: string, listing: ToolListing): PlanIssue | undefined {
  const names = listing.names
  if (names.unqualify(tool) === undefined)
    return {
      code: 'unknown_tool',
      message: `The tool "${tool}" is not a tool of the server "${names.server}": its tools are named "${names.server}__<tool>".`,
      hint: 'Call a tool by the name tools/list shows.',
      path: ['name'],
    }
  return listing.callIssue(tool)
}

/** Reports withheld tools to the audit log and the caller; an audit that fails is reported too. */
function reportWithheld(options: McpGuardOptions, withheld: readonly WithheldTool[]): void {
  if (withheld.length === 0) return
  try {
    for (const tool of withheld)
      options.audit?.write({
        type: 'tool_withheld',
        tool: tool.tool,
        definitionHash: tool.definitionHash,
        pin: tool.pin,
        issue: tool.issue,
      })
  } catch {
    // withheld either way; a sink that fails stops the run at the guard's next write
  }
  options.onToolWithheld?.(withheld)
}

/** A call refused before the plan guard saw it, audited as the guard audits its refusals. */
function refusedUnlisted(
  options: McpGuardOptions,
  tool: string,
  args: unknown,
  issue: PlanIssue,
): AuthorizeResult {
  try {
    options.audit?.write({
      type: 'call_denied',
      tool,
      stepId: null,
      argsHash: argsHashOf(args),
      issues: [issue],
    })
  } catch {
    // refused either way; a sink that fails stops the run at the guard's next write
  }
  return { allowed: false, issue, issues: [issue] }
}

/** What an allowed call needs of its session to report how it ended. */
interface CallSession {
  readonly guard: PlanGuard
  readonly durable: DurableSession
  readonly compiler: PlanCompiler
  readonly mode: 'plan' | 'call'
}

/** The allowed call of `tool` (`serverTool` on the server), as the plan guard approved it. */
function allowedCall(
  { guard, durable, compiler, mode }: CallSession,
  tool: string,
  serverTool: string,
  result: AuthorizeResult & { allowed: true },
): AllowedMcpCall {
  const { stepId, args } = result
  return {
    allowed: true,
    stepId,
    serverTool,
    args,
    finish: (answer, deliver) => {
      const output = denyFilteredResult(serverTool, args, answer, compiler)
      deliver?.(output)
      // per-call mode keeps an error's text too: the model reads it, so its trust is tracked
      if (mode === 'plan' && isErrorResult(output))
        guard.fail(
          stepId,
          new PlanError(`The "${tool}" tool returned an error.`, { code: 'step_failed' }),
        )
      else guard.complete(stepId, output)
      durable.finish(guard)
      return output
    },
    fail: (error) => {
      guard.fail(stepId, error)
      durable.finish(guard)
    },
  }
}

/** The members of a session's guard that deal with what the server lists. */
function listingMembers(
  options: McpGuardOptions,
  { guard, durable, compiler }: CallSession,
  listing: ToolListing,
): Pick<McpCallGuard, 'names' | 'listTools' | 'toolsChanged' | 'needsListing' | 'authorizePrompt'> {
  const names = listing.names
  const authorizePrompt = createResourceAuthorizer(
    guard,
    createPromptInspector(compiler, names),
    durable,
  )
  return {
    names,
    listTools: (answer) => {
      const listed = listing.list(answer)
      reportWithheld(options, listed.withheld)
      return listed
    },
    toolsChanged: () => listing.changed(),
    needsListing: (tool) => listing.needsListing(tool),
    authorizePrompt: (name) =>
      authorizePrompt('prompts/get', typeof name === 'string' ? promptUri(name) : name),
  }
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
    ...(options.labelledFiles === undefined ? {} : { labelledFiles: options.labelledFiles }),
  })
}

/** A per-call decision as the client sees it: issues at the call, not at the one-step plan. */
function atCall(result: AuthorizeResult): AuthorizeResult {
  return result.allowed ? result : { ...result, issues: relocate(result.issues) }
}

/**
 * Decides calls through the plan guard: in plan mode against the plan, in per-call mode each
 * as a one-step turn under a fresh step id.
 */
function createCallDecider(
  guard: PlanGuard,
  mode: 'plan' | 'call',
  options: McpGuardOptions,
  state: PlanGuardState | undefined,
): (tool: string, args: unknown) => AuthorizeResult | Promise<AuthorizeResult> {
  // step ids stay unique across a resumed run: a reused id with the same call would count as done
  let counter = Object.keys(state?.status ?? {}).length
  const retry = options.retryInterrupted
  return (tool, args) => {
    if (mode === 'plan') return authorizeInterrupted(guard, { tool, args }, retry)
    counter += 1
    const stepId = `call-${counter}`
    const submitted = guard.submitPlan({ steps: [{ id: stepId, tool, args: args ?? {} }] }, 'turn')
    if (!submitted.success) {
      const issues = relocate(submitted.issues)
      return { allowed: false, issue: issues[0] as PlanIssue, issues }
    }
    // submitPlan and the reservation inside authorize run in one tick: parallel calls cannot interleave
    return authorizeInterrupted(guard, { tool, args, stepId }, retry).then(atCall)
  }
}

/** What the model may call instead of a refused call; nothing once the run has stopped. */
function allowedNow({ guard, compiler, mode }: CallSession): string {
  if (guard.stopReason() !== undefined) return ''
  return mode === 'plan' ? allowedText({ guard }) : allowedText({ compiler })
}

/** A guard that threw: the call is refused with the issues it threw. */
function failedDecision(error: unknown): AuthorizeResult {
  const issues = guardFailure(error)
  return { allowed: false, issue: issues[0] as PlanIssue, issues }
}

/**
 * The decision about one call: refused before the plan guard when the listing rules it out,
 * else the plan guard's, an allowed call started on the durable session; never throws (a
 * promise of it only where the guard answers later).
 */
function callDecision(
  options: McpGuardOptions,
  { guard, durable }: CallSession,
  listing: ToolListing,
  decide: (tool: string, args: unknown) => AuthorizeResult | Promise<AuthorizeResult>,
  tool: string,
  args: unknown,
): AuthorizeResult | Promise<AuthorizeResult> {
  const refusal = listingIssue(tool, listing)
  if (refusal !== undefined) return refusedUnlisted(options, tool, args, refusal)
  const started = (result: AuthorizeResult) =>
    result.allowed ? durable.start(guard, tool, result) : result
  try {
    const decided = decide(tool, args)
    if (decided instanceof Promise) return decided.then(started).catch(failedDecision)
    const result = started(decided)
    return result instanceof Promise ? result.catch(failedDecision) : result
  } catch (error) {
    return failedDecision(error)
  }
}

/** The session's `authorize`: decides each call, reports the decision, answers a refusal. */
function createAuthorize(
  options: McpGuardOptions,
  session: CallSession,
  listing: ToolListing,
  state: PlanGuardState | undefined,
): McpCallGuard['authorize'] {
  const decide = createCallDecider(session.guard, session.mode, options, state)
  return async (tool, args, callId) => {
    const result = await callDecision(options, session, listing, decide, tool, args)
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
      return { allowed: false, issues, result: denialResult(tool, issues, allowedNow(session)) }
    const serverTool = listing.names.unqualify(tool) as string
    return allowedCall(session, tool, serverTool, result)
  }
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
    mode: options.resources ?? 'policy',
    schemes: options.resourceSchemes,
    onDisk: options.checkPathsOnDisk !== false,
  })
  const listing = new ToolListing(compiler.policy, serverNames(options.serverName))
  const compiled = compiledPlan(options, compiler)
  const durable: DurableSession = await createDurableSession(options)
  const state = options.state ?? durable.restored
  const guard = sessionGuard(compiled, options, compiler, state)
  const restoredPlanMode = state?.plan != null && state.mode !== 'turn'
  const mode = options.plan !== undefined || restoredPlanMode ? 'plan' : 'call'
  const session: CallSession = { guard, durable, compiler, mode }
  return {
    guard,
    compiler,
    mode,
    isToolAllowed: (name) => compiler.policy.tools.has(name),
    ...listingMembers(options, session, listing),
    authorize: createAuthorize(options, session, listing, state),
    checkResource: resourceCheckOf(inspector),
    authorizeResource:
      inspector === undefined ? undefined : createResourceAuthorizer(guard, inspector, durable),
  }
}
