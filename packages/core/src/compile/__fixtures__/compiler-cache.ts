import type { PolicyInput } from '../../schema/policy-schema.js'
import type { PlanCompiler } from '../../types/plan-compiler.js'
import { createPlanCompiler } from '../create-plan-compiler.js'

/**
 * A compiler for the policy that `policyOf` makes of some knobs, made once per distinct knobs
 * (compared as JSON): a property test draws the same few policies over and over.
 */
export function compilerCache<Knobs>(
  policyOf: (knobs: Knobs) => PolicyInput,
): (knobs: Knobs) => Promise<PlanCompiler> {
  const compilers = new Map<string, Promise<PlanCompiler>>()
  return (knobs) => {
    const key = JSON.stringify(knobs)
    let compiler = compilers.get(key)
    if (compiler === undefined) {
      compiler = createPlanCompiler(policyOf(knobs))
      compilers.set(key, compiler)
    }
    return compiler
  }
}
