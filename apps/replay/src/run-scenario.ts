import { mkdir, rm, symlink, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { createPlanCompiler, PlanCompilationError, type PlanCompiler } from '@plan/core'
import { errorMessage } from '@plan/core/adapter'
import { asksReviewer, type ReplayMode, replayPolicy } from './replay-policy.js'
import { createReplayRepo, type ReplayRepo } from './replay-repo.js'
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

/** Writes the scenario's files, the files outside the workspace and the committed links. */
async function plant(scenario: Scenario, repo: ReplayRepo, outside: string): Promise<void> {
  for (const [file, content] of Object.entries(scenario.files ?? {}))
    await repo.write(file, content)
  for (const [file, content] of Object.entries(scenario.outside ?? {})) {
    await mkdir(dirname(join(outside, file)), { recursive: true })
    await writeFile(join(outside, file), content)
  }
  for (const [link, target] of Object.entries(scenario.links ?? {})) {
    await mkdir(dirname(join(repo.root, link)), { recursive: true })
    await symlink(target.replace('$OUTSIDE', outside), join(repo.root, link))
  }
}

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
  const outside = `${repo.root}-outside`
  try {
    await plant(scenario, repo, outside)
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
    else crashed = errorMessage(error)
  } finally {
    await repo.cleanup()
    await rm(outside, { recursive: true, force: true })
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
