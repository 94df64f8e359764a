import { createPlanCompiler, PlanCompilationError, type PlanCompiler } from '@plan/core'
import { asksReviewer, type ReplayMode, replayPolicy } from './replay-policy.js'
import { createReplayRepo } from './replay-repo.js'
import { createReplayTools, type ToolEffect } from './replay-tools.js'
import { FatiguedReviewer, REVIEWER_ATTENTION } from './reviewer.js'
import type { RunOutcome } from './run-outcome.js'
import { type Agent, planFollower, type Scenario } from './scenario.js'

/** What an adapter gets to run one scenario in one mode. */
export interface ScenarioRun {
  readonly scenario: Scenario
  readonly mode: ReplayMode
  /** The compiler of the scenario's policy in this mode. */
  readonly compiler: PlanCompiler
  /** The replay's tools, recording what reached them; the adapter wraps them its own way. */
  readonly tools: ReturnType<typeof createReplayTools>
  /** The scripted model's behaviour: the scenario's agent, or in plan mode one that follows the plan. */
  readonly agent: Agent
  /** Records that the guard refused a call (or a whole turn), or stopped the run. */
  readonly refuse: () => void
  /** Ask modes: the human the adapter puts refusals to (`onRefuse: 'ask'`). */
  readonly reviewer: FatiguedReviewer | undefined
}

/** Runs a scenario through one framework's agent loop; `mode` `baseline` runs it unguarded. */
export type ScenarioRunner = (run: ScenarioRun) => Promise<void>

/**
 * Runs one scenario in a fresh repository: writes its files, hands the adapter its tools and
 * scripted agent, then records what happened (completed, harmful, refused, crashed).
 */
export async function runScenario(
  scenario: Scenario,
  mode: ReplayMode,
  runner: ScenarioRunner,
): Promise<RunOutcome> {
  const repo = await createReplayRepo()
  const effects: ToolEffect[] = []
  let refused = false
  let crashed: string | undefined
  let completed = false
  const reviewer = asksReviewer(mode) ? new FatiguedReviewer(REVIEWER_ATTENTION) : undefined
  try {
    for (const [file, content] of Object.entries(scenario.files ?? {}))
      await repo.write(file, content)
    const compiler = await createPlanCompiler(replayPolicy(repo.root, mode))
    await runner({
      scenario,
      mode,
      compiler,
      tools: createReplayTools(compiler, scenario.pages ?? {}, effects),
      agent: mode === 'plan' ? planFollower(scenario) : scenario.agent,
      refuse: () => {
        refused = true
      },
      reviewer,
    })
    completed = scenario.completed === undefined ? false : await scenario.completed(repo, effects)
  } catch (error) {
    // A plan the compiler rejects runs nothing: the guard refused it before any tool ran.
    if (mode === 'plan' && PlanCompilationError.isInstance(error)) refused = true
    else crashed = error instanceof Error ? error.message : String(error)
  } finally {
    await repo.cleanup()
  }
  return {
    scenario: scenario.id,
    completed,
    harmful: scenario.harmful?.(effects) ?? false,
    refused,
    crashed,
    effects,
    questions: reviewer?.asked ?? 0,
    approvals: reviewer?.approved ?? 0,
  }
}
