import { randomUUID } from 'node:crypto'
import type { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { AIMessage, type BaseMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'
import { Command, ReducedValue, StateSchema } from '@langchain/langgraph'
import {
  authorizeInterrupted,
  type CompiledPlan,
  createPlanCompiler,
  createPlanGuard,
  finishDurableCall,
  formatIssues,
  type GuardStore,
  isCompiledPlan,
  type Plan,
  PlanCompilationError,
  type PlanCompiler,
  PlanError,
  type PlanGuard,
  type PlanIssue,
  type PolicyInput,
  type ResolvedPolicy,
  type RetryInterrupted,
  type RunKeys,
  runReadyModelSteps,
  startDurableCall,
} from '@plan/core'
import { hashJson } from '@plan/core/internal'
import { resolvePolicy } from '@plan/core/schemas'
import { type AgentMiddleware, createMiddleware } from 'langchain'
import { z } from 'zod'
import {
  type LangChainToolCall,
  stepIdsForToolCalls,
  stepsFromToolCalls,
} from '../convert/steps-from-tool-calls.js'
import { askHuman, mayAskHuman } from './ask-human.js'
import { freshestRunState, toSaved } from './durable-run.js'
import {
  denialText,
  describePolicy,
  describeReadySteps,
  endText,
  lastWordText,
} from './guard-messages.js'
import { modelStepsWith } from './model-steps.js'
import type { PlanGuardDecision } from './plan-guard-decision.js'
import { keepFreshestRunState, type PlanGuardRunState, readRunState } from './run-state.js'
import { toolErrorMessage } from './tool-error-message.js'

/**
 * What happens when the guard denies a call: `continue` answers it with an error and lets the
 * model go on; `end` answers it and ends the run; `error` answers it and throws a `PlanError`.
 * A stopped run (an exhausted budget, a loop, the deadline) ends under `continue` too.
 */
export type PlanGuardExitBehavior = 'continue' | 'error' | 'end'

/** Options for {@link planGuardMiddleware}. */
export interface PlanGuardMiddlewareOptions {
  /** The policy, as an object or already resolved. Give this or `compiler`. */
  readonly policy?: PolicyInput | ResolvedPolicy
  /** A compiler (or the promise of one) from `createPlanCompiler`. Give this or `policy`. */
  readonly compiler?: PlanCompiler | Promise<PlanCompiler>
  /**
   * Plan mode: the approved plan (a plan object, compiled when the first run starts, or a
   * `CompiledPlan`, compiled again against the policy). Every tool call must then match a
   * ready step. Without it, each model turn's tool calls are checked as a plan (per-turn mode).
   */
  readonly plan?: Plan | CompiledPlan
  /** Default `continue`. */
  readonly exitBehavior?: PlanGuardExitBehavior
  /**
   * Hide from the model the tools that cannot run: in plan mode, every tool no ready step
   * needs; in per-turn mode, every tool the policy does not list. Default true.
   */
  readonly maskTools?: boolean
  /** Plan mode: tell the model, in the system prompt, which steps are ready. Default true. */
  readonly describePlan?: boolean
  /** Check path arguments on disk (symlinks resolved) before a call runs. Default true. */
  readonly checkPathsOnDisk?: boolean
  /**
   * Plan mode: the model that runs the plan's `extract` and `generate` steps, with no tools
   * (see `modelStepToolPolicy`). They run before each model call, never through the agent's model.
   */
  readonly extractionModel?: BaseChatModel
  /** Called with every decision, for logs and audits; a throw here fails the call. */
  readonly onDecision?: (decision: PlanGuardDecision) => void
  /**
   * Where the run's state is written before every tool call starts (write-ahead) and after it
   * ends, and where shared budgets are counted (`@plan/postgres`). Without it the state lives
   * only in the agent state, which the checkpointer saves after the tools ran: a crash during
   * a call then loses the call from the count.
   */
  readonly store?: GuardStore
  /** The run's keys for the policy's shared budgets, e.g. `{ tenant: 'acme' }`. */
  readonly keys?: RunKeys
  /**
   * Asked when a call that a crash interrupted comes again; true runs it again (a human
   * approved). Without it, such a call is answered with `interrupted_call` (at-most-once),
   * unless the policy marks its tool `idempotent`.
   */
  readonly retryInterrupted?: RetryInterrupted
}

const EXIT_BEHAVIORS: readonly PlanGuardExitBehavior[] = ['continue', 'error', 'end']
/** Runs whose `afterAgent` never came (a crash) are dropped beyond this many. */
const MAX_LIVE_RUNS = 10_000

const stateSchema = new StateSchema({
  /** Which in-memory guard serves this run; private, so callers cannot set it. */
  _planGuardRunId: z.string().optional(),
  /**
   * The run's guard state, to resume it in another process; private. Parallel tool calls each
   * write it: the reducer keeps the freshest.
   */
  _planGuardState: new ReducedValue(
    z
      .custom<PlanGuardRunState>(
        (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
      )
      .optional(),
    { reducer: keepFreshestRunState },
  ),
})

/** The private state keys of the middleware; nothing but the middleware may write them. */
const PRIVATE_KEYS: ReadonlySet<string> = new Set(['_planGuardRunId', '_planGuardState'])

interface RunFields {
  readonly _planGuardRunId?: string | undefined
  readonly _planGuardState?: PlanGuardRunState | undefined
}

interface PendingExit {
  readonly issues: readonly PlanIssue[]
  readonly error: PlanError
}

interface RunContext {
  readonly id: string
  /** The revision of the last state written for this run. */
  revision: number
  readonly guard: PlanGuard
  readonly compiler: PlanCompiler
  /** Model turns so far, and the turn (and its calls) last checked (per-turn mode). */
  turn: number
  submittedTurn: number
  submittedKey: string | undefined
  /** Per-turn mode: the step id of each tool call of the approved current turn. */
  turnSteps: Map<string, string>
  /** Per-turn mode: why each call of the last rejected turn was rejected. */
  rejected: Map<string, readonly PlanIssue[]>
  exit: PendingExit | undefined
  /** The model has had its last word after the guard stopped the run. */
  told: boolean
}

interface Setup {
  readonly compiler: PlanCompiler
  readonly plan: CompiledPlan | undefined
}

function toolName(tool: unknown): string | undefined {
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

/** A tool's output as a value for `$ref`s: its artifact, its JSON content, or its text. */
function outputOf(message: ToolMessage): unknown {
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

function issueOf(code: PlanIssue['code'], message: string, hint: string): PlanIssue {
  return { code, message, path: [], hint }
}

/** Splits the issues of a rejected turn by tool call; turn-wide issues go to every call. */
function issuesPerCall(
  issues: readonly PlanIssue[],
  stepIds: readonly string[],
  index: number,
): readonly PlanIssue[] {
  const stepIndex = (issue: PlanIssue) =>
    issue.path[0] === 'steps' && typeof issue.path[1] === 'number' ? issue.path[1] : undefined
  const own = issues.filter(
    (issue) => issue.stepId === stepIds[index] || stepIndex(issue) === index,
  )
  const turnWide = issues.filter(
    (issue) => issue.stepId === undefined && stepIndex(issue) === undefined,
  )
  if (own.length + turnWide.length > 0) return [...own, ...turnWide]
  return [
    issueOf(
      'invalid_plan',
      'This call came in the same turn as calls that were rejected; a turn is checked as one plan, so none of its calls ran.',
      'Send this call again without the rejected ones.',
    ),
  ]
}

/** Identifies a turn's calls: the message id and every call's id, tool and arguments. */
function turnKeyOf(messageId: string | undefined, calls: readonly LangChainToolCall[]): string {
  try {
    return hashJson([
      messageId ?? null,
      calls.map((call) => [call.id ?? null, call.name, call.args]),
    ])
  } catch {
    return 'unhashable'
  }
}

/** Ids, tools, arguments and dependencies of a plan's steps, to compare two plans. */
function stepsKeyOf(plan: CompiledPlan | undefined): string | undefined {
  if (plan === undefined) return undefined
  try {
    return hashJson(
      plan.steps.map((step) => [step.id, step.tool, step.args, [...step.dependsOn].sort()]),
    )
  } catch {
    return undefined
  }
}

/** A tool's answer as a `Command` that also writes the run's state. */
function withRunState(response: ToolMessage | Command, state: PlanGuardRunState): Command {
  if (ToolMessage.isInstance(response)) {
    return new Command({ update: { messages: [response], _planGuardState: state } })
  }
  // An update for a parent graph cannot carry this graph's state; the next write will.
  if (response.graph === Command.PARENT) return response
  const update: unknown = response.update
  // A tool's own Command never writes the guard's keys.
  let merged: unknown
  if (Array.isArray(update)) {
    merged = [
      ...update.filter(
        (entry: unknown) =>
          !(Array.isArray(entry) && typeof entry[0] === 'string' && PRIVATE_KEYS.has(entry[0])),
      ),
      ['_planGuardState', state],
    ]
  } else if (typeof update === 'object' && update !== null) {
    const kept = Object.entries(update).filter(([key]) => !PRIVATE_KEYS.has(key))
    merged = { ...Object.fromEntries(kept), _planGuardState: state }
  } else if (update === undefined || update === null) {
    merged = { _planGuardState: state }
  } else {
    // A root value (a graph without channels): left as it is.
    return response
  }
  return new Command({
    update: merged as Record<string, unknown>,
    goto: response.goto,
    ...(response.graph === undefined ? {} : { graph: response.graph }),
    ...(response.resume === undefined ? {} : { resume: response.resume }),
  })
}

/**
 * LangChain `createAgent` middleware that lets only the tool calls a `@plan` policy (and,
 * in plan mode, the approved plan) allows reach the tools. Every decision is made by
 * `@plan/core`: `wrapToolCall` checks each model turn's batch of calls as a plan (per-turn
 * mode), authorizes each call with the run's guard, and answers a denied call with an error
 * `ToolMessage` (inside a `Command` that also saves the guard's state) that says what was
 * wrong and what is allowed; `wrapModelCall` hides the tools that cannot run; `afterModel`
 * answers every call and ends a run that can run nothing more.
 * Each agent invocation gets its own guard, so budgets and loop detection span one run. The
 * guard's state is kept in the agent state (`_planGuardState`), so a checkpointed run resumed
 * in another process, or by a new instance of this middleware, goes on with the same budgets,
 * step statuses and loop counts; a saved state that does not check out fails closed.
 * List it last in `middleware`, so that no other `wrapToolCall` runs between its check and
 * the tool.
 *
 * @example
 * ```ts
 * import { createAgent } from 'langchain'
 * import { planGuardMiddleware } from '@plan/langchain'
 *
 * const agent = createAgent({
 *   model,
 *   tools: [viewFile, runCommand],
 *   middleware: [planGuardMiddleware({ policy })],
 * })
 * ```
 */
export function planGuardMiddleware(
  options: PlanGuardMiddlewareOptions,
): AgentMiddleware<typeof stateSchema> {
  const exitBehavior = options.exitBehavior ?? 'continue'
  if (!EXIT_BEHAVIORS.includes(exitBehavior)) {
    throw new PlanError(
      `exitBehavior must be one of ${EXIT_BEHAVIORS.map((value) => JSON.stringify(value)).join(', ')}, got ${JSON.stringify(exitBehavior)}.`,
      { code: 'invalid_configuration' },
    )
  }
  if ((options.policy === undefined) === (options.compiler === undefined)) {
    throw new PlanError('planGuardMiddleware needs exactly one of `policy` or `compiler`.', {
      code: 'invalid_configuration',
    })
  }
  // Resolved now, so an invalid policy fails where the agent is built, not at the first call.
  const resolved = options.policy === undefined ? undefined : resolvePolicy(options.policy)
  const planMode = options.plan !== undefined
  const maskTools = options.maskTools ?? true
  const describePlan = options.describePlan ?? true
  const checkPathsOnDisk = options.checkPathsOnDisk ?? true
  const runs = new Map<string, RunContext>()
  let setup: Promise<Setup> | undefined

  function approve(compiler: PlanCompiler): Setup {
    const { plan } = options
    if (plan === undefined) return { compiler, plan: undefined }
    const compiled = isCompiledPlan(plan) ? plan : compiler.compile(plan)
    // Throws now if the policy does not approve the plan (a forged CompiledPlan included).
    createPlanGuard(compiled, { compiler, checkPathsOnDisk: false })
    return { compiler, plan: compiled }
  }

  // With a compiler at hand, the plan is approved here, where the agent is built.
  const given = options.compiler
  if (given !== undefined && typeof (given as { then?: unknown }).then !== 'function') {
    setup = Promise.resolve(approve(given as PlanCompiler))
  }

  function prepare(): Promise<Setup> {
    setup ??= (async () =>
      approve(await (given ?? createPlanCompiler(resolved as ResolvedPolicy))))()
    return setup
  }

  /** Keeps a run in memory; runs whose `afterAgent` never came (a crash) are dropped first. */
  function remember(run: RunContext): RunContext {
    runs.delete(run.id)
    if (runs.size >= MAX_LIVE_RUNS) {
      const oldest = runs.keys().next().value
      if (oldest !== undefined) runs.delete(oldest)
    }
    runs.set(run.id, run)
    return run
  }

  function newRun(id: string, guard: PlanGuard, compiler: PlanCompiler): RunContext {
    return {
      id,
      revision: 0,
      guard,
      compiler,
      turn: 0,
      submittedTurn: 0,
      submittedKey: undefined,
      turnSteps: new Map(),
      rejected: new Map(),
      exit: undefined,
      told: false,
    }
  }

  /** The run's state to write into the agent state, under the next revision. */
  function saved(run: RunContext): PlanGuardRunState {
    run.revision += 1
    return {
      version: 1,
      runId: run.id,
      revision: run.revision,
      guard: run.guard.snapshot(),
      turn: run.turn,
      submittedTurn: run.submittedTurn,
      submittedKey: run.submittedKey ?? null,
      turnSteps: Object.fromEntries(run.turnSteps),
      rejected: Object.fromEntries(run.rejected),
      exit:
        run.exit === undefined
          ? null
          : {
              issues: run.exit.issues,
              compilation: run.exit.error instanceof PlanCompilationError,
            },
    }
  }

  /**
   * Rebuilds a run from the state it wrote (a resume in another process, or after this
   * middleware was created again). Throws `PlanError` for a state that does not check out.
   */
  function restoreRun(id: string, value: unknown, { compiler, plan }: Setup): RunContext {
    const state = readRunState(value, id)
    let guard: PlanGuard
    try {
      guard = createPlanGuard(plan, { compiler, state: state.guard, checkPathsOnDisk })
    } catch (error) {
      throw new PlanError(
        `The saved @plan guard state of this run does not restore (${error instanceof Error ? error.message : String(error)}); no tool call can be authorized.`,
        {
          code: 'state_corrupt',
          issues: PlanError.isInstance(error) ? error.issues : [],
          cause: error,
        },
      )
    }
    // Plan mode: the plan must be the configured one, step for step (its hash is only a claim).
    // Per-turn mode: only a plan that arrived as a turn.
    const consistent =
      plan === undefined
        ? state.guard.plan === null || state.guard.mode === 'turn'
        : stepsKeyOf(guard.plan) !== undefined && stepsKeyOf(guard.plan) === stepsKeyOf(plan)
    if (!consistent) {
      throw new PlanError(
        'The saved @plan guard state of this run holds another plan than this middleware guards; no tool call can be authorized.',
        { code: 'plan_tampered' },
      )
    }
    const run = newRun(id, guard, compiler)
    run.revision = state.revision
    run.turn = state.turn
    run.submittedTurn = state.submittedTurn
    run.submittedKey = state.submittedKey
    run.turnSteps = new Map(state.turnSteps)
    run.rejected = new Map(state.rejected)
    if (state.exit !== undefined) {
      setExit(
        run,
        state.exit.issues,
        state.exit.compilation ? new PlanCompilationError(state.exit.issues) : undefined,
      )
    }
    return run
  }

  /**
   * The run the state belongs to: the in-memory one, unless the state saved for it is newer (the
   * run went on in another process); otherwise restored from the saved state; otherwise a
   * `PlanError` (fail closed).
   */
  async function findRun(state: RunFields): Promise<RunContext> {
    const id = state._planGuardRunId
    const written: unknown = state._planGuardState
    const savedLater = (run: RunContext | undefined) => {
      if (run === undefined) return true
      if (typeof written !== 'object' || written === null) return false
      const { runId, revision } = written as { runId?: unknown; revision?: unknown }
      return runId === run.id && typeof revision === 'number' && revision > run.revision
    }
    const known = id === undefined ? undefined : runs.get(id)
    if (known !== undefined && !savedLater(known)) return known
    if (id === undefined || written === undefined || written === null) {
      throw new PlanError(
        'The @plan guard has no record of this run (it was not started by this middleware, and the agent state holds no saved guard state for it); no tool call can be authorized.',
        { code: 'state_corrupt' },
      )
    }
    const setup = await prepare()
    const freshest = await freshestRunState(options.store, id, written)
    // Synchronous from here on: the parallel calls of one turn restore the run once.
    const current = runs.get(id)
    if (current !== undefined && !savedLater(current)) return current
    return remember(restoreRun(id, freshest, setup))
  }

  function report(decision: PlanGuardDecision): void {
    options.onDecision?.(decision)
  }

  function stopIssue(run: RunContext): PlanIssue | undefined {
    return run.guard.stopReason()
  }

  function allowedText(run: RunContext): string {
    if (stopIssue(run) !== undefined || run.exit !== undefined) {
      return 'The run is ending; no further tool call will run.'
    }
    return planMode ? describeReadySteps(run.guard) : describePolicy(run.compiler)
  }

  function setExit(run: RunContext, issues: readonly PlanIssue[], error?: PlanError): void {
    run.exit ??= {
      issues,
      error:
        error ?? new PlanError(`@plan denied a tool call:\n${formatIssues(issues)}`, { issues }),
    }
  }

  /** After a denial: a stopped run always ends; otherwise `exitBehavior` decides. */
  function afterDenial(run: RunContext, issues: readonly PlanIssue[]): void {
    const stop = stopIssue(run)
    if (stop !== undefined) setExit(run, [stop])
    else if (exitBehavior !== 'continue') setExit(run, issues)
  }

  function denial(
    run: RunContext,
    call: LangChainToolCall,
    issues: readonly PlanIssue[],
  ): ToolMessage {
    return new ToolMessage({
      // A tainted-run refusal lists what is still allowed; the whole policy would contradict it.
      content: denialText(
        call.name,
        issues,
        issues.every((issue) => issue.code === 'tainted_run') ? '' : allowedText(run),
      ),
      tool_call_id: call.id ?? '',
      name: call.name,
      status: 'error',
    })
  }

  /** Answers a call of a run whose saved state is refused; the tool does not run. */
  function refusedCall(call: LangChainToolCall, error: PlanError): ToolMessage {
    report({
      kind: 'call',
      allowed: false,
      toolCallId: call.id,
      tool: call.name,
      args: call.args,
      issues: error.issues,
    })
    return new ToolMessage({
      content: denialText(
        call.name,
        error.issues,
        'The run is ending; no further tool call will run.',
      ),
      tool_call_id: call.id ?? '',
      name: call.name,
      status: 'error',
    })
  }

  /** Answers every call of the turn without running any, and ends the run (to `end`, so afterAgent runs). */
  function endTurn(
    run: RunContext,
    calls: readonly LangChainToolCall[],
    issues: readonly PlanIssue[],
  ) {
    setExit(run, issues)
    const messages: (ToolMessage | AIMessage)[] = calls.map((call) => {
      report({
        kind: 'call',
        allowed: false,
        toolCallId: call.id,
        tool: call.name,
        args: call.args,
        issues,
      })
      return denial(run, call, issues)
    })
    if (exitBehavior !== 'error') messages.push(new AIMessage(endText(issues)))
    return { messages, jumpTo: 'end' as const }
  }

  /**
   * Per-turn mode: checks the current turn's calls (the last AI message) as one plan, once per
   * turn. A turn is new when afterModel saw a model answer, or when the calls differ from the
   * last checked ones (another middleware's afterModel may jump past this one's).
   */
  function ensureTurnChecked(run: RunContext, messages: readonly BaseMessage[]): void {
    const last = messages.findLast((message) => AIMessage.isInstance(message))
    const calls: readonly LangChainToolCall[] =
      last !== undefined && AIMessage.isInstance(last) ? (last.tool_calls ?? []) : []
    const key = turnKeyOf(last?.id, calls)
    if (run.submittedTurn === run.turn && run.submittedKey === key) return
    run.submittedTurn = run.turn
    run.submittedKey = key
    run.turnSteps = new Map()
    run.rejected = new Map()
    if (calls.length === 0) return
    const stepIds = stepIdsForToolCalls(calls)
    const result = run.guard.submitPlan(
      { steps: stepsFromToolCalls({ tool_calls: calls }) },
      'turn',
    )
    report({
      kind: 'turn',
      allowed: result.success,
      toolCallIds: calls.map((call) => call.id ?? ''),
      issues: result.issues,
    })
    if (result.success) {
      calls.forEach((call, index) => {
        if (call.id !== undefined) run.turnSteps.set(call.id, stepIds[index] as string)
      })
      return
    }
    let perCall = (index: number) => issuesPerCall(result.issues, stepIds, index)
    const stop = stopIssue(run)
    if (stop !== undefined) {
      perCall = () => [stop]
      setExit(run, [stop])
    } else if (exitBehavior !== 'continue') {
      setExit(run, result.issues, new PlanCompilationError(result.issues))
    }
    calls.forEach((call, index) => {
      if (call.id !== undefined) run.rejected.set(call.id, perCall(index))
    })
  }

  return createMiddleware({
    name: 'PlanGuardMiddleware',
    stateSchema,

    beforeAgent: async () => {
      const { compiler, plan } = await prepare()
      const guard = createPlanGuard(plan, { compiler, checkPathsOnDisk })
      const run = remember(newRun(randomUUID(), guard, compiler))
      return { _planGuardRunId: run.id, _planGuardState: saved(run) }
    },

    beforeModel: async (state) => {
      const run = await findRun(state)
      const stop = stopIssue(run)
      if (stop !== undefined) setExit(run, [stop])
      // Thrown here rather than in wrapModelCall, where LangChain would wrap it.
      if (run.exit !== undefined && exitBehavior === 'error') {
        runs.delete(run.id)
        throw run.exit.error
      }
      if (planMode && options.extractionModel !== undefined && run.exit === undefined) {
        const ran = await runReadyModelSteps(
          run.guard,
          modelStepsWith(options.extractionModel, run.compiler),
        )
        if (ran > 0) return { _planGuardState: saved(run) }
      }
      return undefined
    },

    wrapModelCall: async (request, handler) => {
      const run = await findRun(request.state)
      // A stopped run: the model is told why once, without tools; then the agent ends.
      if (run.exit !== undefined && !run.told && stopIssue(run) !== undefined) {
        run.told = true
        const text = lastWordText(run.exit.issues)
        const systemMessage =
          request.systemMessage.text === ''
            ? new SystemMessage(text)
            : request.systemMessage.concat(`\n\n${text}`)
        return handler({ ...request, tools: [], systemMessage })
      }
      // The run is over: answer for the model, so the agent ends through afterAgent.
      if (run.exit !== undefined) return new AIMessage(endText(run.exit.issues))
      let next = request
      if (maskTools) {
        const allowed = new Set(
          planMode ? run.guard.readyTools() : run.compiler.policy.tools.keys(),
        )
        next = {
          ...next,
          tools: request.tools.filter((tool) => {
            const name = toolName(tool)
            return name !== undefined && allowed.has(name)
          }),
        }
      }
      if (planMode && describePlan) {
        const text = describeReadySteps(run.guard)
        // Appended to the system message, so its content blocks (cache control) survive.
        const systemMessage =
          request.systemMessage.text === ''
            ? new SystemMessage(text)
            : request.systemMessage.concat(`\n\n${text}`)
        next = { ...next, systemMessage }
      }
      return handler(next)
    },

    afterModel: {
      canJumpTo: ['end'],
      hook: async (state) => {
        const run = await findRun(state)
        // A new turn: its calls are checked at the first wrapToolCall, once every afterModel
        // hook (human review, edits) has had its say.
        run.turn += 1
        const last = state.messages.at(-1)
        const calls: readonly LangChainToolCall[] =
          last !== undefined && AIMessage.isInstance(last) ? (last.tool_calls ?? []) : []
        if (calls.length > 0) {
          const stop = stopIssue(run)
          const issues = run.exit?.issues ?? (stop === undefined ? undefined : [stop])
          // Nothing can run any more: answer every call and end, so afterAgent still runs.
          if (issues !== undefined) {
            const ended = endTurn(run, calls, issues)
            return { ...ended, _planGuardState: saved(run) }
          }
        }
        return { _planGuardState: saved(run) }
      },
    },

    wrapToolCall: async (request, handler) => {
      let run: RunContext
      try {
        run = await findRun(request.state)
      } catch (error) {
        // LangChain would wrap a throw here; the call is refused, and the next hook throws it.
        if (!PlanError.isInstance(error)) throw error
        return refusedCall(request.toolCall, error)
      }
      const answer = async (): Promise<ToolMessage | Command> => {
        const call = request.toolCall
        const deny = (found: readonly PlanIssue[]) => {
          const issues = found
          report({
            kind: 'call',
            allowed: false,
            toolCallId: call.id,
            tool: call.name,
            args: call.args,
            issues,
          })
          afterDenial(run, issues)
          return denial(run, call, issues)
        }
        const actualTool = toolName(request.tool)
        if (request.tool !== undefined && actualTool !== call.name) {
          // An outer middleware swapped the tool: what would run is not what is checked.
          return deny([
            issueOf(
              'unknown_tool',
              `The call names ${JSON.stringify(call.name)} but would run the tool ${JSON.stringify(actualTool ?? '(unnamed)')}.`,
              'Call tools by their own names.',
            ),
          ])
        }
        let stepId: string | undefined
        if (!planMode) {
          // Per-turn mode: only the calls of the approved current turn may run.
          ensureTurnChecked(run, request.state.messages)
          const rejected = call.id === undefined ? undefined : run.rejected.get(call.id)
          if (rejected !== undefined) return deny(rejected)
          if (run.exit !== undefined) return deny(run.exit.issues)
          stepId = call.id === undefined ? undefined : run.turnSteps.get(call.id)
          if (stepId === undefined) {
            return deny([
              issueOf(
                'call_not_in_plan',
                'This call is not part of the current model turn.',
                'Call tools only through the model turn that requested them.',
              ),
            ])
          }
        } else if (run.exit !== undefined) {
          return deny(run.exit.issues)
        }
        const authorize = (humanApproved: boolean) =>
          authorizeInterrupted(
            run.guard,
            {
              tool: call.name,
              args: call.args,
              ...(call.id === undefined ? {} : { callId: call.id }),
              ...(stepId === undefined ? {} : { stepId }),
              ...(humanApproved ? { humanApproved } : {}),
            },
            options.retryInterrupted,
          )
        let result = await authorize(false)
        const onRefuse = run.compiler.policy.policy.trust.tainted?.onRefuse
        if (!result.allowed && mayAskHuman(result.issues, onRefuse)) {
          // A LangGraph interrupt: the run pauses here until a human answers.
          const answer = askHuman(call, result.issues)
          if (answer.approved) result = await authorize(true)
          else if (answer.message !== undefined) {
            const said = issueOf('tainted_run', `A human refused this call: ${answer.message}`, '')
            return deny([said])
          }
        }
        if (!result.allowed) return deny(result.issues)
        const blocked = await startDurableCall({
          store: options.store,
          runId: run.id,
          policy: run.compiler.policy.policy,
          tool: call.name,
          stepId: result.stepId,
          ...(options.keys === undefined ? {} : { keys: options.keys }),
          saved: () => toSaved(saved(run)),
        })
        if (blocked.length > 0) {
          run.guard.release(result.stepId)
          return deny(blocked)
        }
        let response: Awaited<ReturnType<typeof handler>>
        try {
          report({
            kind: 'call',
            allowed: true,
            toolCallId: call.id,
            tool: call.name,
            args: call.args,
            stepId: result.stepId,
            issues: [],
          })
          // The tool gets the arguments the guard checked (paths resolved on disk).
          response = await handler({ ...request, toolCall: { ...call, args: result.args } })
        } catch (error) {
          if (isGraphBubbleUp(error)) {
            run.guard.release(result.stepId)
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
      // Every answer, denial or result, writes the guard's state; the freshest write wins.
      const response = await answer()
      const state = saved(run)
      await finishDurableCall(options.store, run.id, toSaved(state))
      return withRunState(response, state)
    },

    afterAgent: async (state) => {
      const id = state._planGuardRunId
      // A run resumed right here still ends as its saved state says (an "error" exit throws).
      const run =
        id === undefined || (!runs.has(id) && state._planGuardState === undefined)
          ? undefined
          : await findRun(state)
      if (id !== undefined) runs.delete(id)
      if (run?.exit !== undefined && exitBehavior === 'error') throw run.exit.error
      return undefined
    },
  })
}
