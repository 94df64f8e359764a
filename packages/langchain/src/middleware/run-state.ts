import { PlanError, type PlanGuardState, type PlanIssue } from '@plan/core'

/**
 * What `planGuardMiddleware` keeps of a run in the agent state (the private key
 * `_planGuardState`), so that a checkpointed run can be resumed in another process: the
 * guard's `snapshot()` and the middleware's own bookkeeping. It is data the application stores:
 * a restored state is checked again (the plan is compiled again against the policy, and in plan
 * mode must be the configured plan); what it can and cannot do is described in the README.
 */
export interface PlanGuardRunState {
  readonly version: 1
  /** The run this state belongs to (the run's `_planGuardRunId`). */
  readonly runId: string
  /** Grows with every write of the run; of two states of one run, the higher one is kept. */
  readonly revision: number
  /** The guard's state (`PlanGuard.snapshot()`): plan, step statuses, outputs, budgets used. */
  readonly guard: PlanGuardState
  /** Model turns so far, and the turn last checked (per-turn mode). */
  readonly turn: number
  readonly submittedTurn: number
  /** Identifies the calls of the turn last checked (per-turn mode). */
  readonly submittedKey: string | null
  /** Per-turn mode: the step id of each tool call of the approved current turn. */
  readonly turnSteps: Readonly<Record<string, string>>
  /** Per-turn mode: why each call of the last rejected turn was rejected. */
  readonly rejected: Readonly<Record<string, readonly PlanIssue[]>>
  /** Why the run is ending, when it is; `compilation` for a rejected turn. */
  readonly exit: { readonly issues: readonly PlanIssue[]; readonly compilation: boolean } | null
}

/**
 * The reducer of `_planGuardState`: parallel tool calls of one turn each write the state, and
 * the freshest (highest revision) of one run wins; a new run's state replaces an old run's.
 */
export function keepFreshestRunState(
  current: PlanGuardRunState | undefined,
  next: PlanGuardRunState | undefined,
): PlanGuardRunState | undefined {
  if (next === undefined || next === null) return current
  if (!isRecord(current) || !isRecord(next)) return next
  if (current.runId !== next.runId) return next
  const currentRevision = typeof current.revision === 'number' ? current.revision : -1
  const nextRevision = typeof next.revision === 'number' ? next.revision : -1
  return nextRevision >= currentRevision ? next : current
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function invalid(field: string): never {
  const message = `The saved @plan guard state of this run has an invalid ${field}; no tool call can be authorized.`
  throw new PlanError(message, {
    issues: [{ code: 'state_corrupt', message, path: ['_planGuardState', field] }],
  })
}

function count(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) invalid(field)
  return value
}

function isIssue(value: unknown): value is PlanIssue {
  return (
    isRecord(value) &&
    typeof value.code === 'string' &&
    typeof value.message === 'string' &&
    Array.isArray(value.path)
  )
}

function issues(value: unknown, field: string): readonly PlanIssue[] {
  if (!Array.isArray(value) || !value.every(isIssue)) invalid(field)
  return value
}

function entries<T>(
  value: unknown,
  field: string,
  read: (item: unknown) => T,
): readonly (readonly [string, T])[] {
  if (!isRecord(value)) invalid(field)
  return Object.keys(value).map((key) => [key, read(value[key])] as const)
}

/** A saved run state checked field by field (the guard's part is checked by `@plan/core`). */
export interface ReadRunState {
  readonly revision: number
  readonly guard: PlanGuardState
  readonly turn: number
  readonly submittedTurn: number
  readonly submittedKey: string | undefined
  readonly turnSteps: readonly (readonly [string, string])[]
  readonly rejected: readonly (readonly [string, readonly PlanIssue[]])[]
  readonly exit:
    | { readonly issues: readonly PlanIssue[]; readonly compilation: boolean }
    | undefined
}

/**
 * Checks a run state read back from the agent state; throws `PlanError` (fail closed) when it
 * is not one `planGuardMiddleware` wrote for the run `runId`.
 */
export function readRunState(value: unknown, runId: string): ReadRunState {
  if (!isRecord(value) || value.version !== 1) invalid('version')
  if (value.runId !== runId) invalid('runId')
  if (!isRecord(value.guard)) invalid('guard')
  const submittedKey = value.submittedKey
  if (submittedKey !== null && typeof submittedKey !== 'string') invalid('submittedKey')
  const exit = value.exit
  if (exit !== null && (!isRecord(exit) || typeof exit.compilation !== 'boolean')) invalid('exit')
  return {
    revision: count(value.revision, 'revision'),
    guard: value.guard as unknown as PlanGuardState,
    turn: count(value.turn, 'turn'),
    submittedTurn: count(value.submittedTurn, 'submittedTurn'),
    submittedKey: submittedKey ?? undefined,
    turnSteps: entries(value.turnSteps, 'turnSteps', (item) =>
      typeof item === 'string' ? item : invalid('turnSteps'),
    ),
    rejected: entries(value.rejected, 'rejected', (item) => issues(item, 'rejected')),
    exit:
      exit === null
        ? undefined
        : { issues: issues(exit.issues, 'exit'), compilation: exit.compilation === true },
  }
}
