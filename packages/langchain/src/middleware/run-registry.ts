import { randomUUID } from 'node:crypto'
import { createPlanGuard, type GuardStore, PlanError } from '@plan/core'
import { freshestRunState } from './durable-run.js'
import type { GuardSetup } from './guard-setup.js'
import type { PlanGuardFields } from './plan-guard-state.js'
import { restoreRun } from './restore-run.js'
import { newRun, type RunContext } from './run-context.js'
import { startsNewRun } from './run-start.js'

/** Runs whose end never came (a crash) are dropped beyond this many. */
const MAX_LIVE_RUNS = 10_000

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

function keep<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key)
  if (map.size >= MAX_LIVE_RUNS) {
    const oldest = map.keys().next().value
    if (oldest !== undefined) map.delete(oldest)
  }
  map.set(key, value)
}

/**
 * The runs one middleware instance serves, in memory, by run id; a run this process does not
 * know (or knows in an older state) is restored from the state saved in the agent state.
 */
export class RunRegistry {
  readonly #runs = new Map<string, RunContext>()
  /** Runs whose saved state was refused, until a hook node throws the error. */
  readonly #refusals = new Map<string, PlanError>()
  /** The run each live invocation serves, and the invocations refused. */
  readonly #invocations = new WeakMap<object, string>()
  readonly #refusedInvocations = new WeakMap<object, PlanError>()
  readonly #setup: () => Promise<GuardSetup>
  readonly #store: GuardStore | undefined
  readonly #checkPathsOnDisk: boolean

  constructor(options: {
    readonly setup: () => Promise<GuardSetup>
    readonly store: GuardStore | undefined
    readonly checkPathsOnDisk: boolean
  }) {
    this.#setup = options.setup
    this.#store = options.store
    this.#checkPathsOnDisk = options.checkPathsOnDisk
  }

  /** A new run with its own guard. */
  async start(): Promise<RunContext> {
    const { compiler, plan } = await this.#setup()
    const guard = createPlanGuard(plan, { compiler, checkPathsOnDisk: this.#checkPathsOnDisk })
    return this.#remember(newRun(randomUUID(), guard, compiler))
  }

  /** True when the run `id` is in memory. */
  has(id: string): boolean {
    return this.#runs.has(id)
  }

  /**
   * The run the state belongs to: the in-memory one, unless the state saved for it is newer (the
   * run went on in another process); otherwise restored from the saved state; otherwise a
   * `PlanError` (fail closed). The run is then the one `invocation` serves.
   */
  async find(state: PlanGuardFields, invocation?: object): Promise<RunContext> {
    const id = state._planGuardRunId
    const written: unknown = state._planGuardState
    const known = id === undefined ? undefined : this.#current(id, written)
    if (known !== undefined) return this.#enter(invocation, known)
    if (id === undefined || written === undefined || written === null) {
      throw new PlanError(
        'The @plan guard has no record of this run (it was not started by this middleware, and the agent state holds no saved guard state for it); no tool call can be authorized.',
        { code: 'state_corrupt' },
      )
    }
    const setup = await this.#setup()
    const freshest = await freshestRunState(this.#store, id, written)
    // Synchronous from here on: the parallel calls of one turn restore the run once.
    return this.#enter(
      invocation,
      this.#current(id, written) ??
        this.#remember(restoreRun(id, freshest, setup, this.#checkPathsOnDisk)),
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
    if (startsNewRun(state, same)) return this.#enter(invocation, await this.start())
    return this.find(state, invocation)
  }

  /** Drops the run from memory (its saved state still restores it). */
  forget(id: string): void {
    this.#runs.delete(id)
  }

  /**
   * Records that the run of `state` was refused with `error`, for the next model call of
   * `invocation` to throw when one is given, otherwise for a hook node to throw.
   */
  refuse(state: PlanGuardFields, error: PlanError, invocation?: object): void {
    if (invocation === undefined) keep(this.#refusals, refusalKey(state), error)
    else this.#refusedInvocations.set(invocation, error)
  }

  /** The refusal recorded for the run of `state` at that state, once. */
  takeRefusal(state: PlanGuardFields): PlanError | undefined {
    const key = refusalKey(state)
    const error = this.#refusals.get(key)
    this.#refusals.delete(key)
    return error
  }

  /** The in-memory run `id`, unless the saved state is newer than it. */
  #current(id: string, written: unknown): RunContext | undefined {
    const run = this.#runs.get(id)
    if (run === undefined) return undefined
    const revision = savedRevision(written, id)
    return revision !== undefined && revision > run.revision ? undefined : run
  }

  /** Records that `invocation` is served by `run`. */
  #enter(invocation: object | undefined, run: RunContext): RunContext {
    if (invocation !== undefined) this.#invocations.set(invocation, run.id)
    return run
  }

  /** Keeps a run in memory; runs whose end never came (a crash) are dropped first. */
  #remember(run: RunContext): RunContext {
    keep(this.#runs, run.id, run)
    return run
  }
}
