import { type IssueCode, PlanError, type PlanGuardState, type PlanIssue } from '@plan/core'
import { z } from 'zod'
import { refusalError } from './run-refusal.js'

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const countSchema = z.number().int().nonnegative()

/** An issue as the middleware saved it; its other fields (hint, step id…) are kept. */
const issueSchema = z.looseObject({
  code: z.custom<IssueCode>((value) => typeof value === 'string'),
  message: z.string(),
  path: z.array(z.union([z.string(), z.number()])),
})

const issuesSchema = z.array(issueSchema).transform((issues) => issues as readonly PlanIssue[])

/**
 * What `planGuardMiddleware` keeps of a run in the agent state (the private key
 * `_planGuardState`), so that a checkpointed run can be resumed in another process: the
 * guard's `snapshot()` and the middleware's own bookkeeping. The key order is the order in
 * which a broken state is reported.
 */
export const planGuardRunStateSchema = z.object({
  version: z.literal(1),
  /** The run this state belongs to (the run's `_planGuardRunId`). */
  runId: z.string(),
  /** The guard's state (`PlanGuard.snapshot()`), checked again by `@plan/core` on restore. */
  guard: z.custom<PlanGuardState>(isRecord),
  /** Identifies the calls of the turn last checked (per-turn mode). */
  submittedKey: z.string().nullable(),
  /** Why the run is ending, when it is; `compilation` for a rejected turn. */
  exit: z.object({ issues: issuesSchema, compilation: z.boolean() }).nullable(),
  /** Grows with every write of the run; of two states of one run, the higher one is kept. */
  revision: countSchema,
  /** Model turns so far (per-turn mode). */
  turn: countSchema,
  /** The turn last checked (per-turn mode). */
  submittedTurn: countSchema,
  /** Per-turn mode: the step id of each tool call of the approved current turn. */
  turnSteps: z.record(z.string(), z.string()),
  /** Per-turn mode: why each call of the last rejected turn was rejected. */
  rejected: z.record(z.string(), issuesSchema),
})

/**
 * What `planGuardMiddleware` keeps of a run in the agent state (the private key
 * `_planGuardState`), so that a checkpointed run can be resumed in another process: the
 * guard's `snapshot()` and the middleware's own bookkeeping. It is data the application stores:
 * a restored state is checked again (the plan is compiled again against the policy, and in plan
 * mode must be the configured plan); what it can and cannot do is described in the README.
 */
export type PlanGuardRunState = Readonly<z.output<typeof planGuardRunStateSchema>>

/**
 * The reducer of `_planGuardState`: parallel tool calls of one turn each write the state, and
 * the freshest (highest revision) of one run wins; a new run's state replaces an old run's.
 * A refused run (`refusalUpdate`) is thrown: the run ends with its error.
 */
export function keepFreshestRunState(
  current: PlanGuardRunState | undefined,
  next: PlanGuardRunState | undefined,
): PlanGuardRunState | undefined {
  const refused = refusalError(next) ?? refusalError(current)
  if (refused !== undefined) throw refused
  if (next === undefined || next === null) return current
  if (!isRecord(current) || !isRecord(next)) return next
  if (current.runId !== next.runId) return next
  const currentRevision = typeof current.revision === 'number' ? current.revision : -1
  const nextRevision = typeof next.revision === 'number' ? next.revision : -1
  return nextRevision >= currentRevision ? next : current
}

const FIELDS = Object.keys(planGuardRunStateSchema.shape)

function invalid(field: string): never {
  const message = `The saved @plan guard state of this run has an invalid ${field}; no tool call can be authorized.`
  throw new PlanError(message, {
    issues: [{ code: 'state_corrupt', message, path: ['_planGuardState', field] }],
  })
}

/**
 * Checks a run state read back from the agent state; throws `PlanError` (fail closed) when it
 * is not one `planGuardMiddleware` wrote for the run `runId`.
 */
export function readRunState(value: unknown, runId: string): PlanGuardRunState {
  const result = planGuardRunStateSchema.safeParse(value)
  const wrongRun = isRecord(value) && value.runId !== runId
  if (result.success && !wrongRun) return result.data
  // Not an object at all reads as a wrong version, the first field.
  const broken = new Set<unknown>(
    result.success ? [] : result.error.issues.map((issue) => issue.path[0] ?? 'version'),
  )
  if (wrongRun) broken.add('runId')
  invalid(FIELDS.find((field) => broken.has(field)) ?? 'version')
}
