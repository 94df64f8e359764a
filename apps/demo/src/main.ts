import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { toMermaid, toText } from '@plan/core'
import type { ScenarioResult } from './scenario.js'
import { agentScenarios } from './scenarios/agent-scenarios.js'
import { cleanPlanScenario } from './scenarios/clean-plan.js'
import { cyclePlanScenario } from './scenarios/cycle-plan.js'
import { createDemoWorkspace, type DemoWorkspace } from './workspace.js'

const args = new Set(process.argv.slice(2))
const json = args.has('--json')
const clean = args.has('--clean')
const color = !json && process.stdout.isTTY === true && process.env.NO_COLOR === undefined

const scenarios = [cleanPlanScenario, cyclePlanScenario, ...agentScenarios()]

/** Runs one scenario; a failure (a real model that cannot be reached, say) is reported, not thrown. */
async function runScenario(
  scenario: (workspace: DemoWorkspace) => Promise<ScenarioResult>,
): Promise<ScenarioResult> {
  try {
    return await scenario(workspace)
  } catch (error) {
    const cause =
      error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : ''
    return {
      name: scenario.name || 'scenario',
      title: 'The scenario could not run',
      via: 'core',
      model: 'unknown',
      expectation: 'the scenario runs to its end',
      passed: false,
      plan: [],
      issues: [],
      status: {},
      ran: [],
      stopped: [],
      notes: [`error: ${error instanceof Error ? error.message : String(error)}${cause}`],
    }
  }
}
const workspace = await createDemoWorkspace()
const results: (ScenarioResult & { report: string; mermaid: string })[] = []
try {
  for (const scenario of scenarios) {
    await workspace.reset()
    const result = await runScenario(scenario)
    const tree = toText(result.plan, { issues: result.issues, status: result.status })
    const report = join(workspace.reports, `${result.name}.txt`)
    const mermaid = join(workspace.reports, `${result.name}.mmd`)
    const lines = [
      `${result.title}`,
      `via ${result.via} · model: ${result.model}`,
      `expected: ${result.expectation}`,
      '',
      tree,
      '',
      ...result.ran.map((entry) => `ran:     ${entry}`),
      ...result.stopped.map(
        (call) =>
          `stopped: ${call.tool} ${JSON.stringify(call.args)} — ${call.code}: ${call.message}`,
      ),
      ...result.notes,
      `${result.passed ? 'PASS' : 'FAIL'}`,
    ]
    await writeFile(report, `${lines.join('\n')}\n`)
    await writeFile(
      mermaid,
      toMermaid(result.plan, { issues: result.issues, status: result.status }),
    )
    results.push({ ...result, report, mermaid })
    if (!json) {
      const verdict = result.passed ? 'PASS' : 'FAIL'
      process.stdout.write(
        `\n── ${result.name} (${result.via}) ${color ? `\u001b[${result.passed ? 32 : 31}m${verdict}\u001b[0m` : verdict}\n`,
      )
      process.stdout.write(
        `${lines
          .slice(0, -1)
          .join('\n')
          .replace(
            tree,
            toText(result.plan, { issues: result.issues, status: result.status, color }),
          )}\n`,
      )
    }
  }
} finally {
  if (clean) await workspace.remove()
}

const passed = results.every((result) => result.passed)
if (json) {
  process.stdout.write(
    `${JSON.stringify(
      {
        passed,
        workspace: workspace.root,
        scenarios: results.map(
          ({
            name,
            title,
            via,
            model,
            expectation,
            passed,
            ran,
            stopped,
            notes,
            report,
            mermaid,
            issues,
          }) => ({
            name,
            title,
            via,
            model,
            expectation,
            passed,
            ran,
            stopped,
            issues: issues.map(({ code, stepId, path, message }) => ({
              code,
              stepId: stepId ?? null,
              path,
              message,
            })),
            notes,
            report: clean ? null : report,
            mermaid: clean ? null : mermaid,
          }),
        ),
      },
      null,
      2,
    )}\n`,
  )
} else {
  process.stdout.write(
    `\n${results.filter((result) => result.passed).length}/${results.length} scenarios behaved as expected.`,
  )
  process.stdout.write(clean ? '\n' : ` Reports and Mermaid pictures: ${workspace.reports}\n`)
}
process.exitCode = passed ? 0 : 1
