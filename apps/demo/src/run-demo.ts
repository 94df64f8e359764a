import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { errorMessage } from '@plan/core/adapter'
import { toMermaid, toText } from '@plan/render'
import type { ScenarioResult } from './scenario.js'
import { agentScenarios } from './scenarios/agent-scenarios.js'
import { cleanPlanScenario } from './scenarios/clean-plan.js'
import { cyclePlanScenario } from './scenarios/cycle-plan.js'
import { createDemoWorkspace, type DemoWorkspace } from './workspace.js'

/** Runs one scenario; a failure (a real model that cannot be reached, say) is reported, not thrown. */
async function runScenario(
  scenario: (workspace: DemoWorkspace) => Promise<ScenarioResult>,
  workspace: DemoWorkspace,
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
      notes: [`error: ${errorMessage(error)}${cause}`],
    }
  }
}
/** Options of {@link runDemo}. */
export interface RunDemoOptions {
  /** Print one JSON document instead of the reports. */
  readonly json?: boolean
  /** Remove the temporary folder at the end. */
  readonly clean?: boolean
  /** Colour the execution trees. */
  readonly color?: boolean
  /** Where to print. */
  readonly out: { write(text: string): unknown }
  /** Environment, for the real-model switch. */
  readonly env?: Readonly<Record<string, string | undefined>>
}

type ReportedResult = ScenarioResult & { report: string; mermaid: string }

/** The lines of one scenario's report: what was asked, the tree, what ran and was stopped. */
function reportLines(result: ScenarioResult, tree: string): string[] {
  return [
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
}

/** Prints one scenario's verdict and report, with the tree in colour when asked. */
function printScenario(
  out: RunDemoOptions['out'],
  result: ScenarioResult,
  lines: readonly string[],
  tree: string,
  color: boolean,
): void {
  const verdict = result.passed ? 'PASS' : 'FAIL'
  out.write(
    `\n── ${result.name} (${result.via}) ${color ? `\u001b[${result.passed ? 32 : 31}m${verdict}\u001b[0m` : verdict}\n`,
  )
  out.write(
    `${lines
      .slice(0, -1)
      .join('\n')
      .replace(
        tree,
        toText(result.plan, { issues: result.issues, status: result.status, color }),
      )}\n`,
  )
}

/** The JSON summary of a run: the outcome of each scenario, the plans left in the reports. */
function jsonSummary(
  results: readonly ReportedResult[],
  passed: boolean,
  root: string,
  clean: boolean,
): string {
  return `${JSON.stringify(
    {
      passed,
      workspace: root,
      // The plan and the status map are in the reports; the summary keeps the outcome.
      scenarios: results.map(
        ({ plan: _plan, status: _status, report, mermaid, issues, ...rest }) => ({
          ...rest,
          issues: issues.map(({ code, stepId, path, message }) => ({
            code,
            stepId: stepId ?? null,
            path,
            message,
          })),
          report: clean ? null : report,
          mermaid: clean ? null : mermaid,
        }),
      ),
    },
    null,
    2,
  )}\n`
}

/** Runs every scenario on a fresh temporary copy of the fixture; returns the exit code. */
export async function runDemo(options: RunDemoOptions): Promise<number> {
  const json = options.json === true
  const clean = options.clean === true
  const color = options.color === true && !json
  const out = options.out
  const scenarios = [cleanPlanScenario, cyclePlanScenario, ...agentScenarios(options.env)]
  const workspace = await createDemoWorkspace()
  const results: ReportedResult[] = []
  try {
    for (const scenario of scenarios) {
      await workspace.reset()
      const result = await runScenario(scenario, workspace)
      const tree = toText(result.plan, { issues: result.issues, status: result.status })
      const report = join(workspace.reports, `${result.name}.txt`)
      const mermaid = join(workspace.reports, `${result.name}.mmd`)
      const lines = reportLines(result, tree)
      await writeFile(report, `${lines.join('\n')}\n`)
      await writeFile(
        mermaid,
        toMermaid(result.plan, { issues: result.issues, status: result.status }),
      )
      results.push({ ...result, report, mermaid })
      if (!json) printScenario(out, result, lines, tree, color)
    }
  } finally {
    if (clean) await workspace.remove()
  }

  const passed = results.every((result) => result.passed)
  if (json) out.write(jsonSummary(results, passed, workspace.root, clean))
  else {
    out.write(
      `\n${results.filter((result) => result.passed).length}/${results.length} scenarios behaved as expected.`,
    )
    out.write(clean ? '\n' : ` Reports and Mermaid pictures: ${workspace.reports}\n`)
  }
  return passed ? 0 : 1
}
