import { isRecord } from '@plan/shell/common'
import type { CompiledPlan } from '../types/compiled-plan.js'

/**
 * True for a value shaped like a compiled plan (one `compile` returned, or a JSON copy of one).
 * A shape check only: a guard given such a plan still verifies it against its compiler.
 */
export function isCompiledPlan(value: unknown): value is CompiledPlan {
  return (
    isRecord(value) &&
    typeof value.hash === 'string' &&
    Array.isArray(value.steps) &&
    Array.isArray(value.order) &&
    Array.isArray(value.levels)
  )
}
