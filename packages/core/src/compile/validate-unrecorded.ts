import type { PlanCompiler, PlanValidationResult } from '../types/plan-compiler.js'

const UNRECORDED = Symbol('@plan/core.validateUnrecorded')

type Validate = (plan: unknown) => PlanValidationResult

/** Gives a compiler made by `createPlanCompiler` its {@link validateUnrecorded}, hidden from its keys. */
export function withUnrecordedValidate(compiler: PlanCompiler, validate: Validate): PlanCompiler {
  Object.defineProperty(compiler, UNRECORDED, { value: validate })
  return compiler
}

/**
 * `compiler.validate(plan)`, except that an approved plan is not recorded for
 * `compiler.approves`: for a guard's per-turn batches, which live for one model turn and never
 * reach `approves`, and whose entries in the compiler's weak set cost the garbage collector more
 * than compiling them. A plan of one step without references, a model turn's usual one call, is
 * approved without the tables of a general plan (`validateOneStep`). Any other compiler
 * validates as usual.
 */
export function validateUnrecorded(
  compiler: PlanCompiler & { readonly [UNRECORDED]?: Validate },
  plan: unknown,
): PlanValidationResult {
  const own = compiler[UNRECORDED]
  return typeof own === 'function' ? own(plan) : compiler.validate(plan)
}
