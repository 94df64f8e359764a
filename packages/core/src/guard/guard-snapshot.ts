import { PlanError } from '@plan/shell/common'
import type { PlanCompiler } from '../types/plan-compiler.js'
import type { PlanGuardState } from '../types/plan-guard.js'
import { freezeJson } from '../util/json-copy.js'
import { countersFromSaved, savedCounters } from './budget-counters.js'
import type { GuardParts } from './guard-parts.js'
import type { CheckedGuardState } from './read-guard-state.js'
import { revalidatePlan } from './revalidate-plan.js'

/** The guard's state as JSON: the run, its budgets and the trust of its outputs. */
export function snapshotGuard({ run, budgets, flow }: GuardParts): PlanGuardState {
  return {
    version: 1,
    plan: run.plan ?? null,
    status: Object.fromEntries(run.status),
    outputs: Object.fromEntries(run.outputs),
    ...savedCounters(budgets.counters),
    seenPlanHashes: [...budgets.seenPlanHashes],
    startedAt: budgets.startedAt,
    stopped: budgets.stopped ?? null,
    mode: run.mode,
    flow: flow.toJSON(),
    ...(run.asked.size > 0 ? { asked: Object.fromEntries(run.asked) } : {}),
  }
}

/**
 * Loads a checked saved state into a new guard's run and budgets. The saved plan is compiled
 * again (a plan that differs from `expectedHash`, when given, is refused); steps that were
 * running are interrupted calls, except those of idempotent tools, which `release` frees.
 */
export function restoreGuard(
  state: CheckedGuardState,
  compiler: PlanCompiler,
  expectedHash: string | undefined,
  into: Pick<GuardParts, 'run' | 'budgets' | 'flow'> & { release: (stepId: string) => void },
): void {
  const { run, budgets } = into
  const plan = state.plan === null ? undefined : revalidatePlan(compiler, state.plan)
  if (expectedHash !== undefined && plan !== undefined && expectedHash !== plan.hash) {
    throw new PlanError(
      'The plan passed to createPlanGuard differs from the plan in the restored state.',
      { code: 'plan_tampered' },
    )
  }
  for (const [id, value] of Object.entries(state.status)) run.status.set(id, value)
  for (const [id, value] of Object.entries(state.outputs)) run.outputs.set(id, freezeJson(value))
  budgets.counters = countersFromSaved(state)
  for (const hash of state.seenPlanHashes) budgets.seenPlanHashes.add(hash)
  budgets.startedAt = state.startedAt
  budgets.stopped = state.stopped ?? undefined
  if (plan === undefined) return
  run.install(plan, state.mode ?? 'plan', true, (stepId) => into.flow.forget(stepId))
  into.flow.place(run.steps.ids, run.steps.positions)
  run.markRestored()
  for (const [callId, key] of Object.entries(state.asked ?? {})) run.asked.set(callId, key)
  // At-least-once for idempotent tools: their interrupted calls run again (and count again).
  for (const stepId of [...run.interrupted])
    if (compiler.policy.tools.get(run.step(stepId)?.tool ?? '')?.idempotent === true)
      into.release(stepId)
}
