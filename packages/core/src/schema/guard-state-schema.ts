import { z } from 'zod'
import { BUDGET_COUNTERS, type CounterKind } from './budget-counter-kinds.js'

const count = z.int().nonnegative()
const counts = z.record(z.string(), count)

const COUNTER_SCHEMAS = {
  count,
  'count?': count.optional(),
  counts: counts.optional(),
} as const satisfies Record<CounterKind, z.ZodType>

type CounterShape = {
  [Name in keyof typeof BUDGET_COUNTERS]: (typeof COUNTER_SCHEMAS)[(typeof BUDGET_COUNTERS)[Name]]
}

const counterShape = Object.fromEntries(
  Object.entries(BUDGET_COUNTERS).map(([name, kind]) => [name, COUNTER_SCHEMAS[kind]]),
) as CounterShape

/**
 * An object checked here for its shape only; what it holds is checked where it is used (the
 * plan is compiled again, the flow state read by the flow tracker).
 */
function checkedLater<T = unknown>(shape: z.ZodType = z.looseObject({})): z.ZodType<T> {
  return shape as unknown as z.ZodType<T>
}

/**
 * The guard's state as JSON (`PlanGuard.snapshot()`), to resume a run in another process: the plan,
 * each step's status and output, the budget counters and output trust. The one definition of a
 * saved state: its type, JSON Schema and, through that, validator (read without loading zod).
 */
export const guardStateSchema = z
  .looseObject({
    version: z.literal(1),
    plan: checkedLater().nullable(),
    status: z.record(z.string(), z.enum(['pending', 'running', 'done', 'failed', 'skipped'])),
    outputs: z.record(z.string(), z.unknown()),
    ...counterShape,
    seenPlanHashes: z.array(z.string()),
    startedAt: z.number(),
    stopped: checkedLater(z.looseObject({ code: z.string(), message: z.string() })).nullable(),
    /** How the current plan arrived: `plan` (whole plan) or `turn` (per-turn mode). */
    mode: z.enum(['plan', 'turn']).optional(),
    /**
     * Trust labels of finished steps and the untrusted text seen so far. A state without it
     * (from an older version) is restored fail-closed: every output counts as untrusted.
     */
    flow: checkedLater(z.unknown()).optional(),
    /**
     * Calls whose refusal was put to a human and counted (`asksHuman`), by call id, with the
     * key of that denial: a replay of the same call is not counted again. Absent when none is.
     */
    asked: z.record(z.string(), z.string()).optional(),
  })
  .readonly()

/** JSON Schema of a saved guard state (`PlanGuard.snapshot()`), for stores and other languages. */
export function guardStateJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(guardStateSchema)
}
