import type { CompiledPlan } from '../types/compiled-plan.js'

/**
 * True for a value shaped like a compiled plan (one `compile` returned, or a JSON copy of one).
 * A shape check only: a guard given such a plan still verifies it against its compiler.
 */
export function isCompiledPlan(value: unknown): value is CompiledPlan {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const candidate = value as Partial<Record<keyof CompiledPlan, unknown>>
  return (
    typeof candidate.hash === 'string' &&
    Array.isArray(candidate.steps) &&
    Array.isArray(candidate.order) &&
    Array.isArray(candidate.levels)
  )
}
