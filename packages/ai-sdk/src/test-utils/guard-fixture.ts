import { createPlanCompiler, createPlanGuard, type PlanCompiler, type PlanGuard } from '@plan/core'
import { createWorkspace, testPolicy } from './workspace.js'

/** A workspace, a compiler for the test policy, and a guard for `plan` (per-turn mode without). */
export async function guardFixture(
  plan?: unknown,
  budgets: Record<string, number> = {},
): Promise<{ root: string; compiler: PlanCompiler; guard: PlanGuard }> {
  const root = createWorkspace()
  const compiler = await createPlanCompiler(testPolicy(root, budgets))
  const guard = createPlanGuard(plan === undefined ? undefined : compiler.compile(plan), {
    compiler,
  })
  return { root, compiler, guard }
}
