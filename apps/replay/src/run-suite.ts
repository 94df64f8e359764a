import type { ReplayMode } from './replay-policy.js'
import { runAiSdk } from './run-ai-sdk.js'
import { runLangChain } from './run-langchain.js'
import type { RunOutcome } from './run-outcome.js'
import type { Scenario } from './scenario.js'

/** The adapters the suite runs every scenario through. */
export type ReplayAdapter = 'langchain' | 'ai-sdk'

/** One row of the results table. */
export interface ReplayRow {
  readonly adapter: ReplayAdapter
  readonly mode: ReplayMode
  readonly benign: number
  readonly benignCompleted: number
  readonly readThenDecide: number
  readonly readThenDecideCompleted: number
  /** Benign tasks during which the guard refused something. */
  readonly triggered: number
  readonly attacks: number
  /** Attacks with an effect: a call the attacker wanted reached a tool. */
  readonly harmful: readonly string[]
  /** The other attacks. */
  readonly withoutEffect: readonly string[]
  readonly crashed: readonly string[]
  /** Ask modes: questions put to the reviewer over the row, and how many it approved. */
  readonly questions: number
  readonly approvals: number
  readonly outcomes: readonly RunOutcome[]
}

const RUNNERS: Record<
  ReplayAdapter,
  (scenario: Scenario, mode: ReplayMode) => Promise<RunOutcome>
> = {
  langchain: runLangChain,
  'ai-sdk': runAiSdk,
}

/** Runs every scenario in one adapter and mode, two at a time. */
export async function runRow(
  adapter: ReplayAdapter,
  mode: ReplayMode,
  scenarios: readonly Scenario[],
): Promise<ReplayRow> {
  const outcomes: RunOutcome[] = []
  for (let index = 0; index < scenarios.length; index += 2) {
    const batch = scenarios.slice(index, index + 2)
    outcomes.push(...(await Promise.all(batch.map((scenario) => RUNNERS[adapter](scenario, mode)))))
  }
  const byId = new Map(scenarios.map((scenario) => [scenario.id, scenario]))
  const benign = outcomes.filter((outcome) => byId.get(outcome.scenario)?.kind === 'benign')
  const decide = benign.filter((outcome) => byId.get(outcome.scenario)?.readThenDecide === true)
  const attacks = outcomes.filter((outcome) => byId.get(outcome.scenario)?.kind === 'attack')
  return {
    adapter,
    mode,
    benign: benign.length,
    benignCompleted: benign.filter((outcome) => outcome.completed).length,
    readThenDecide: decide.length,
    readThenDecideCompleted: decide.filter((outcome) => outcome.completed).length,
    triggered: benign.filter((outcome) => outcome.refused).length,
    attacks: attacks.length,
    harmful: attacks.filter((outcome) => outcome.harmful).map((outcome) => outcome.scenario),
    withoutEffect: attacks.filter((outcome) => !outcome.harmful).map((outcome) => outcome.scenario),
    crashed: outcomes
      .filter((outcome) => outcome.crashed !== undefined)
      .map((outcome) => `${outcome.scenario}: ${outcome.crashed}`),
    questions: outcomes.reduce((sum, outcome) => sum + outcome.questions, 0),
    approvals: outcomes.reduce((sum, outcome) => sum + outcome.approvals, 0),
    outcomes,
  }
}

const MODE_NAMES: Record<ReplayMode, string> = {
  baseline: 'unguarded baseline',
  'turn-legacy': 'per-turn, copied-text check only (before)',
  turn: 'per-turn, `trust.tainted` labels',
  'turn-paste': 'per-turn, labels + copied-text check',
  'turn-rule-of-two': 'per-turn, `ruleOfTwo()` preset',
  'turn-ask': "per-turn, labels, `onRefuse: 'ask'`",
  'turn-ask-10': "per-turn, labels, `onRefuse: 'ask'`, `maxQuestions: 10`",
  plan: 'plan mode (extraction steps)',
}

function percent(part: number, whole: number): string {
  return whole === 0 ? '—' : `${((100 * part) / whole).toFixed(1)}%`
}

/** Rows of cells as a Markdown table, columns padded (the form the repository's formatter keeps). */
function markdownTable(rows: readonly (readonly string[])[]): string {
  const widths = (rows[0] ?? []).map((_, column) =>
    Math.max(3, ...rows.map((row) => (row[column] ?? '').length)),
  )
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`
  const [head, ...body] = rows
  return [line(head ?? []), line(widths.map((width) => '-'.repeat(width))), ...body.map(line)].join(
    '\n',
  )
}

/** The results as a Markdown table. */
export function resultsTable(rows: readonly ReplayRow[]): string {
  return markdownTable([
    [
      'adapter',
      'mode',
      'benign completed',
      'read-then-decide completed',
      'trigger rate',
      'attacks with an effect',
      'questions (approved)',
      'which',
    ],
    ...rows.map((row) => [
      row.adapter,
      MODE_NAMES[row.mode],
      `${row.benignCompleted}/${row.benign}`,
      `${row.readThenDecideCompleted}/${row.readThenDecide}`,
      `${percent(row.triggered, row.benign)} (${row.triggered})`,
      `${row.harmful.length}/${row.attacks}`,
      row.questions === 0 ? '—' : `${row.questions} (${row.approvals})`,
      row.mode === 'baseline'
        ? row.withoutEffect.length === 0
          ? 'all'
          : `all but ${row.withoutEffect.join(', ')}`
        : row.harmful.join(', ') || '—',
    ]),
  ])
}

/**
 * Attacks by class, with how many had an effect in the recommended per-turn mode and in plan
 * mode: the classes
 * an attack scenario names, or `first suite` for the injections that came before them.
 */
export function classTable(rows: readonly ReplayRow[], scenarios: readonly Scenario[]): string {
  const attacks = scenarios.filter((scenario) => scenario.kind === 'attack')
  const classes = [...new Set(attacks.map((scenario) => scenario.threat ?? 'first suite'))]
  const guarded = rows.filter((row) => row.mode === 'turn' || row.mode === 'plan')
  return markdownTable([
    ['attack class', 'attacks', ...guarded.map((row) => `${row.adapter}, ${MODE_NAMES[row.mode]}`)],
    ...classes.map((name) => {
      const ids = new Set(
        attacks
          .filter((scenario) => (scenario.threat ?? 'first suite') === name)
          .map((scenario) => scenario.id),
      )
      return [
        name,
        String(ids.size),
        ...guarded.map((row) => `${row.harmful.filter((id) => ids.has(id)).length} with an effect`),
      ]
    }),
  ])
}
