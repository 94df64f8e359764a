import type { PlanCompiler, PlanValidationResult } from '../types/plan-compiler.js'

const UNRECORDED = Symbol('@plan/core.validateUnrecorded')

type Validate = (plan: unknown) => PlanValidationResult

/** Gives a compiler made by `createPlanCompiler` its {@link validateUnrecorded}, hidden from its keys. */
export function withUnrecordedValidate(compiler: PlanCompiler, validate: Validate): PlanCompiler {
  Object.defineProperty(compiler, UNRECORDED, { value: validate })
  return compiler
}

/**
 * `compiler.validate(plan)` without recording an approved plan for `compiler.approves`: for a
 * guard's per-turn batches, which live one model turn and never reach `approves`, and whose entries
 * in the compiler's weak set cost the GC more than compiling them. A one-step plan without
 * references (a turn's usual call) skips a general plan's tables; other compilers just validate.
 */
export function validateUnrecorded(
  compiler: PlanCompiler & { readonly [UNRECORDED]?: Validate },
  plan: unknown,
): PlanValidationResult {
  const own = compiler[UNRECORDED]
  return typeof own === 'function' ? own(plan) : compiler.validate(plan)
}
