import { createPlanCompiler, createPlanGuard, type PlanCompiler, type PlanGuard } from '@plan/core'
import { createTestWorkspace, testPolicy } from './test-workspace.js'

/** What {@link guardFixture} creates. */
export interface GuardFixture {
  /** The temporary workspace root of the policy. */
  readonly root: string
  readonly compiler: PlanCompiler
  readonly guard: PlanGuard
}

/**
 * A temporary workspace, a compiler for {@link testPolicy} with `budgets`, and a guard for
 * `plan` (compiled), or a guard in per-turn mode without a plan.
 *
 * @example
 * ```ts
 * const { guard } = await guardFixture([{ id: 'read', tool: 'view_file', args: { file: 'README.md' } }])
 * ```
 */
export async function guardFixture(
  plan?: unknown,
  budgets: Record<string, number> = {},
): Promise<GuardFixture> {
  const { root } = await createTestWorkspace()
  const compiler = await createPlanCompiler(testPolicy(root, { budgets }))
  const guard = createPlanGuard(plan === undefined ? undefined : compiler.compile(plan), {
    compiler,
  })
  return { root, compiler, guard }
}
