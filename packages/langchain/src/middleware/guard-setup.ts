import {
  type CompiledPlan,
  createPlanCompiler,
  createPlanGuard,
  isCompiledPlan,
  type Plan,
  type PlanCompiler,
  type PolicyInput,
  type ResolvedPolicy,
} from '@plan/core'
import { resolvePolicy } from '@plan/core/schemas'

/** The compiler every run uses and, in plan mode, the approved plan. */
export interface GuardSetup {
  readonly compiler: PlanCompiler
  readonly plan: CompiledPlan | undefined
}

/** Where the setup comes from: exactly one of `policy` or `compiler`, and an optional plan. */
export interface GuardSetupSource {
  readonly policy?: PolicyInput | ResolvedPolicy | undefined
  readonly compiler?: PlanCompiler | Promise<PlanCompiler> | undefined
  readonly plan?: Plan | CompiledPlan | undefined
}

function approve(compiler: PlanCompiler, plan: Plan | CompiledPlan | undefined): GuardSetup {
  if (plan === undefined) return { compiler, plan: undefined }
  const compiled = isCompiledPlan(plan) ? plan : compiler.compile(plan)
  // Throws now if the policy does not approve the plan (a forged CompiledPlan included).
  createPlanGuard(compiled, { compiler, checkPathsOnDisk: false })
  return { compiler, plan: compiled }
}

/**
 * The setup, made once: the policy is resolved now, so an invalid one fails where the agent is
 * built; with a compiler at hand the plan is approved now too; otherwise at the first run.
 */
export function lazyGuardSetup(source: GuardSetupSource): () => Promise<GuardSetup> {
  const resolved = source.policy === undefined ? undefined : resolvePolicy(source.policy)
  const given = source.compiler
  let setup: Promise<GuardSetup> | undefined
  if (given !== undefined && typeof (given as { then?: unknown }).then !== 'function') {
    setup = Promise.resolve(approve(given as PlanCompiler, source.plan))
  }
  return () => {
    setup ??= (async () =>
      approve(await (given ?? createPlanCompiler(resolved as ResolvedPolicy)), source.plan))()
    return setup
  }
}
