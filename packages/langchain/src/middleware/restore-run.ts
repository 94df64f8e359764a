import {
  type CompiledPlan,
  createPlanGuard,
  PlanCompilationError,
  PlanError,
  type PlanGuard,
} from '@plan/core'
import { createRunWriter, errorMessage, hashJson } from '@plan/core/adapter'
import type { GuardSetup, RunGuardOptions } from './guard-setup.js'
import { newRun, type RunContext, setExit } from './run-context.js'
import { readRunState } from './run-state.js'

/** Ids, tools, arguments and dependencies of a plan's steps, to compare two plans. */
function stepsKeyOf(plan: CompiledPlan | undefined): string | undefined {
  if (plan === undefined) return undefined
  try {
    return hashJson(
      plan.steps.map((step) => [step.id, step.tool, step.args, [...step.dependsOn].sort()]),
    )
  } catch {
    return undefined
  }
}

function restoreGuard(
  { compiler, plan }: GuardSetup,
  state: ReturnType<typeof readRunState>,
  guardOptions: RunGuardOptions,
): PlanGuard {
  try {
    return createPlanGuard(plan, { ...guardOptions, compiler, state: state.guard })
  } catch (error) {
    throw new PlanError(
      `The saved @plan guard state of this run does not restore (${errorMessage(error)}); no tool call can be authorized.`,
      {
        code: 'state_corrupt',
        issues: PlanError.isInstance(error) ? error.issues : [],
        cause: error,
      },
    )
  }
}

/**
 * Rebuilds a run from the state it wrote (a resume in another process, or after the middleware
 * was created again). Throws `PlanError` for a state that does not check out.
 */
export function restoreRun(
  id: string,
  value: unknown,
  setup: GuardSetup,
  guardOptions: RunGuardOptions,
): RunContext {
  const state = readRunState(value, id)
  const guard = restoreGuard(setup, state, guardOptions)
  // Plan mode: the plan must be the configured one, step for step (its hash is only a claim).
  // Per-turn mode: only a plan that arrived as a turn.
  const consistent =
    setup.plan === undefined
      ? state.guard.plan === null || state.guard.mode === 'turn'
      : stepsKeyOf(guard.plan) !== undefined && stepsKeyOf(guard.plan) === stepsKeyOf(setup.plan)
  if (!consistent) {
    throw new PlanError(
      'The saved @plan guard state of this run holds another plan than this middleware guards; no tool call can be authorized.',
      { code: 'plan_tampered' },
    )
  }
  const run = newRun(id, guard, setup.compiler)
  run.revision = state.revision
  run.writer = createRunWriter({ revision: state.revision, state: undefined })
  run.turn = state.turn
  run.submittedTurn = state.submittedTurn
  run.submittedKey = state.submittedKey ?? undefined
  run.turnSteps = new Map(Object.entries(state.turnSteps))
  run.rejected = new Map(Object.entries(state.rejected))
  if (state.exit !== null) {
    const { issues, compilation } = state.exit
    setExit(run, issues, compilation ? new PlanCompilationError(issues) : undefined)
  }
  return run
}
