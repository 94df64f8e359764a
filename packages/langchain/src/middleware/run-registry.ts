import { randomUUID } from 'node:crypto'
import { createPlanGuard, type GuardStore, PlanError } from '@plan/core'
import { freshestRunState } from './durable-run.js'
import type { GuardSetup, RunGuardOptions } from './guard-setup.js'
import type { PlanGuardFields } from './plan-guard-state.js'
import { restoreRun } from './restore-run.js'
import { newRun, type RunContext } from './run-context.js'
import { startsNewRun } from './run-start.js'

/**
 * Where a refusal waits to be thrown: the run and the last message of the state that met it.
 * The node that throws it sees that same state; a later invocation (new input) never does.
 */
function refusalKey(state: PlanGuardFields): string {
  return `${state._planGuardRunId ?? ''}\u0000${state.messages?.at(-1)?.id ?? ''}`
}

/** The revision a saved state claims for the run `id`, when it is a state of that run. */
function savedRevision(written: unknown, id: string): number | undefined {
  if (typeof written !== 'object' || written === null) return undefined
  const { runId, revision } = written as { runId?: unknown; revision?: unknown }
  return runId === id && typeof revision === 'number' ? revision : undefined
}

/** Sets `key` as the newest entry of `map`, dropping the oldest beyond `limit` entries. */
function keep<V>(map: Map<string, V>, key: string, value: V, limit: number): void {
  map.delete(key)
  if (map.size >= limit) {
    const oldest = map.keys().next().value
    if (oldest !== undefined) map.delete(oldest)
  }
  map.set(key, value)
}

/**
 * The runs one middleware instance serves, in memory, by run id; a run this process does not
 * know (or knows in an older state) is restored from the state saved in the agent state.
 * A run is held by the invocation it serves (LangGraph's per-invocation `runtime.writer`), so
 * it leaves memory with that invocation however the invocation ends (an answer, a jump to the
 * end, a `returnDirect` tool, an error, an interrupt); an invocation that comes back to it
 * (a resume) restores it from its saved state.
 */
export class RunRegistry {
  /** The runs of each live invocation, oldest first. */
  readonly #held = new WeakMap<object, Map<string, RunContext>>()
  /** The runs met without an invocation (a runtime that carries no writer), oldest first. */
  readonly #unheld = new Map<string, RunContext>()
  /**
   * Runs paused inside their tools step, oldest first, until an invocation resumes them: the
   * checkpoint does not yet hold what the other calls of that step did.
   */
  readonly #paused = new Map<string, RunContext>()
  /** Runs whose saved state was refused, until a hook node throws the error. */
  readonly #refusals = new Map<string, PlanError>()
  /** The run each live invocation serves, and the invocations refused. */
  readonly #invocations = new WeakMap<object, string>()
  readonly #refusedInvocations = new WeakMap<object, PlanError>()
  readonly #setup: () => Promise<GuardSetup>
  /** The guard store, read at each use: the agent's LangGraph store is known only at run time. */
  readonly #store: () => GuardStore | undefined
  readonly #guardOptions: RunGuardOptions
  readonly #maxLiveRuns: number

  constructor(options: {
    readonly setup: () => Promise<GuardSetup>
    readonly store: () => GuardStore | undefined
    readonly guardOptions: RunGuardOptions
    readonly maxLiveRuns: number
  }) {
    this.#setup = options.setup
    this.#store = options.store
    this.#guardOptions = options.guardOptions
    this.#maxLiveRuns = options.maxLiveRuns
  }

  /** A new run with its own guard, held by `invocation`. */
  async start(invocation: object | undefined): Promise<RunContext> {
    const { compiler, plan } = await this.#setup()
    const guard = createPlanGuard(plan, { ...this.#guardOptions, compiler })
    return this.#remember(invocation, newRun(randomUUID(), guard, compiler))
  }

  /** True when `invocation` holds the run `id` in memory, or the run waits to be resumed. */
  has(id: string, invocation: object | undefined): boolean {
    return (this.#runsOf(invocation)?.has(id) ?? false) || this.#paused.has(id)
  }

  /**
   * The run the state belongs to: the one `invocation` holds, unless the state saved for it is
   * newer (the run went on in another process); otherwise restored from the saved state (with
   * a store, the store's: see `freshestRunState`); otherwise a `PlanError` (fail closed). The
   * run is then the one `invocation` serves.
   */
  async find(state: PlanGuardFields, invocation: object | undefined): Promise<RunContext> {
    const id = state._planGuardRunId
    const written: unknown = state._planGuardState
    const known = id === undefined ? undefined : this.#current(id, written, invocation)
    if (known !== undefined) return this.#enter(invocation, known)
    if (id === undefined || written === undefined || written === null) {
      throw new PlanError(
        'The @plan guard has no record of this run (it was not started by this middleware, and the agent state holds no saved guard state for it); no tool call can be authorized.',
        { code: 'state_corrupt' },
      )
    }
    const setup = await this.#setup()
    const freshest = await freshestRunState(this.#store(), id, written)
    // Synchronous from here on: the parallel calls of one turn restore the run once.
    return this.#enter(
      invocation,
      this.#current(id, written, invocation) ??
        this.#remember(invocation, restoreRun(id, freshest, setup, this.#guardOptions)),
    )
  }

  /**
   * The run a model call serves when no hook node starts runs (see `startsNewRun`): a new run
   * (not yet written), or the state's. Throws `PlanError` when the state's run is refused, the
   * invocation was refused before, or the setup fails.
   */
  async forModelCall(state: PlanGuardFields, invocation: object | undefined): Promise<RunContext> {
    const refused = invocation === undefined ? undefined : this.#refusedInvocations.get(invocation)
    if (refused !== undefined) throw refused
    const id = state._planGuardRunId
    const same =
      invocation !== undefined && id !== undefined && this.#invocations.get(invocation) === id
    if (startsNewRun(state, same)) return this.#enter(invocation, await this.start(invocation))
    return this.find(state, invocation)
  }

  /** Drops the run from the memory of `invocation` (its saved state still restores it). */
  forget(id: string, invocation: object | undefined): void {
    this.#runsOf(invocation)?.delete(id)
    this.#paused.delete(id)
  }

  /** Keeps a run that an interrupt paused inside its tools step until it is resumed. */
  pause(run: RunContext): void {
    keep(this.#paused, run.id, run, this.#maxLiveRuns)
  }

  /**
   * Records that the run of `state` was refused with `error`, for the next model call of
   * `invocation` to throw when one is given, otherwise for a hook node to throw.
   */
  refuse(state: PlanGuardFields, error: PlanError, invocation?: object): void {
    if (invocation === undefined) keep(this.#refusals, refusalKey(state), error, this.#maxLiveRuns)
    else this.#refusedInvocations.set(invocation, error)
  }

  /** The refusal recorded for the run of `state` at that state, once. */
  takeRefusal(state: PlanGuardFields): PlanError | undefined {
    const key = refusalKey(state)
    const error = this.#refusals.get(key)
    this.#refusals.delete(key)
    return error
  }

  /** The runs `invocation` holds, oldest first (for tests). */
  heldBy(invocation: object | undefined): readonly RunContext[] {
    return [...(this.#runsOf(invocation)?.values() ?? [])]
  }

  /** How many runs and refusals are held outside any invocation (for tests). */
  unheldCount(): number {
    return this.#unheld.size + this.#paused.size + this.#refusals.size
  }

  #runsOf(invocation: object | undefined): Map<string, RunContext> | undefined {
    return invocation === undefined ? this.#unheld : this.#held.get(invocation)
  }

  /** The run `id` that `invocation` holds or resumes, unless the saved state is newer. */
  #current(id: string, written: unknown, invocation: object | undefined): RunContext | undefined {
    const run = this.#runsOf(invocation)?.get(id) ?? this.#resume(id, invocation)
    if (run === undefined) return undefined
    const revision = savedRevision(written, id)
    return revision !== undefined && revision > run.revision ? undefined : run
  }

  /** The paused run `id`, now held by `invocation`. */
  #resume(id: string, invocation: object | undefined): RunContext | undefined {
    const run = this.#paused.get(id)
    if (run === undefined) return undefined
    this.#paused.delete(id)
    return this.#remember(invocation, run)
  }

  /** Records that `invocation` is served by `run`. */
  #enter(invocation: object | undefined, run: RunContext): RunContext {
    if (invocation !== undefined) this.#invocations.set(invocation, run.id)
    return run
  }

  /** Keeps a run in the memory of `invocation`; beyond `maxLiveRuns`, the oldest is dropped. */
  #remember(invocation: object | undefined, run: RunContext): RunContext {
    let runs = this.#runsOf(invocation)
    if (runs === undefined) {
      runs = new Map()
      if (invocation !== undefined) this.#held.set(invocation, runs)
    }
    keep(runs, run.id, run, this.#maxLiveRuns)
    return run
  }
}
