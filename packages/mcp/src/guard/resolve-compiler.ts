import {
  createPlanCompiler,
  type PlanCompiler,
  PlanError,
  type PolicyInput,
  type ResolvedPolicy,
} from '@plan/core'

/** A policy, or a compiler already bound to one. */
export interface PolicySource {
  /** The policy (object or resolved); ignored when `compiler` is given. */
  readonly policy?: PolicyInput | ResolvedPolicy
  /** A compiler bound to the policy, when you already have one. */
  readonly compiler?: PlanCompiler
}

/** The compiler of `source`; throws `PlanError` when it names neither a policy nor a compiler. */
export async function resolveCompiler(source: PolicySource, caller: string): Promise<PlanCompiler> {
  if (source.compiler !== undefined) return source.compiler
  if (source.policy === undefined) {
    const message = `${caller} needs a policy or a compiler.`
    throw new PlanError(message, {
      issues: [
        { code: 'invalid_policy', message, path: [], hint: 'Pass `policy` (or `compiler`).' },
      ],
    })
  }
  return createPlanCompiler(source.policy)
}
