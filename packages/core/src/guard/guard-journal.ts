import { planSteps } from '../compile/build-compiled-plan.js'
import type { UntrustedFlowTracker } from '../flow/create-untrusted-flow-tracker.js'
import type { CompiledPlan } from '../types/compiled-plan.js'
import type { SavedStateChanges } from '../types/saved-state-changes.js'
import { savedCounters } from './budget-counters.js'
import type { RunBudgets } from './run-budgets.js'
import type { RunState } from './run-state.js'

type Path = readonly string[]
type Collected = {
  set: [Path, unknown][]
  delete: Path[]
  append: [Path, readonly unknown[], number][]
}

/** Where the run was when a revision was made: what later changes are counted from. */
interface Mark {
  readonly revision: number
  readonly plan: CompiledPlan | undefined
  readonly outputs: number
  readonly hashes: number
  /** JSON of each part that does not grow with the steps, by path. */
  readonly parts: ReadonlyMap<string, string>
}

/** A revision made of changes: the steps it changed and where the run was. */
interface Entry extends Mark {
  readonly steps: ReadonlySet<string>
}

function put(changes: Collected, path: Path, value: unknown): void {
  if (value === undefined) changes.delete.push(path)
  else changes.set.push([path, value])
}

/**
 * What changes in a guard's `snapshot()` from one saved revision to the next, without making it.
 * The base is the last revision a store confirmed (or the last whole snapshot): a new revision's
 * changes hold every step changed since the base (the run marks them; a new plan brings all its
 * steps), the parts that do not grow with the steps (counters, the stop, the flow's summary) whole,
 * and the items of lists that only grow from where the base had them. So they apply to the base or
 * to any later confirmed revision, in any order of confirmation.
 */
export class GuardJournal {
  private base: Mark | undefined
  /** Revisions made of changes since the base, oldest first. */
  private entries: Entry[] = []

  constructor(
    private readonly run: RunState,
    private readonly budgets: RunBudgets,
    private readonly flow: UntrustedFlowTracker,
  ) {}

  /** The changes to save as `revision`, or undefined when there is no base to count from. */
  changesSince(revision: number): SavedStateChanges | undefined {
    const base = this.base
    if (base === undefined) return undefined
    const { run } = this
    const parts = this.parts()
    const changes: Collected = { set: [], delete: [], append: [] }
    // A part is left out only when every revision the store may hold has it as it is now.
    const marks = [base, ...this.entries]
    for (const [key, [path, value, text]] of parts)
      if (marks.some((mark) => mark.parts.get(key) !== text)) put(changes, path, value)
    const entry: Entry = { ...this.mark(revision, parts), steps: run.changed ?? new Set() }
    run.changed = new Set()
    this.entries.push(entry)
    const steps = new Set<string>()
    for (const { steps: changed } of this.entries) for (const stepId of changed) steps.add(stepId)
    const plan = run.plan
    if (plan !== base.plan) {
      changes.set.push([['plan'], plan ?? null])
      for (const stepId of plan === undefined ? [] : planSteps(plan).ids) {
        steps.add(stepId)
        put(changes, ['flow', 'seen', stepId], this.flow.stepJSON(stepId).seen)
      }
    }
    for (const stepId of steps) this.step(changes, stepId)
    this.appended(changes, base)
    const since = base.revision
    if (changes.append.length === 0) return { since, set: changes.set, delete: changes.delete }
    return { since, ...changes }
  }

  /** A whole snapshot is saved as `revision`: later changes count from it. */
  snapshotTaken(revision: number): void {
    this.base = this.mark(revision)
    this.entries = []
    this.run.changed = new Set()
  }

  /** A store confirmed `revision`: later changes need not repeat what it holds. */
  saved(revision: number): void {
    const index = this.entries.findIndex((entry) => entry.revision === revision)
    if (index < 0) return
    this.base = this.entries[index]
    this.entries = this.entries.slice(index + 1)
  }

  private mark(revision: number, parts = this.parts()): Mark {
    const outputs = this.flow.summaryJSON(Number.MAX_SAFE_INTEGER).outputCount
    const texts = new Map([...parts].map(([key, [, , text]]) => [key, text]))
    const hashes = this.budgets.seenPlanHashes.size
    return { revision, plan: this.run.plan, outputs, hashes, parts: texts }
  }

  /** The parts that do not grow with the steps: path, value and JSON, by path. */
  private parts(): Map<string, [Path, unknown, string]> {
    const { run, budgets } = this
    const summary = this.flow.summaryJSON(Number.MAX_SAFE_INTEGER)
    const rest: Record<string, unknown> = summary.rest
    const list: [Path, unknown][] = [
      ...Object.entries(savedCounters(budgets.counters)).map(([name, value]): [Path, unknown] => [
        [name],
        value,
      ]),
      [['startedAt'], budgets.startedAt],
      [['stopped'], budgets.stopped ?? null],
      [['mode'], run.mode],
      [['asked'], run.asked.size > 0 ? Object.fromEntries(run.asked) : undefined],
      [['flow', 'text', 'saturatedAt'], summary.saturatedAt],
      ...['sensitive', 'acted', 'context', 'files', 'questions'].map((name): [Path, unknown] => [
        ['flow', name],
        rest[name],
      ]),
    ]
    return new Map(
      list.map(([path, value]) => [path.join('.'), [path, value, JSON.stringify(value) ?? '']]),
    )
  }

  private step(changes: Collected, stepId: string): void {
    const { run } = this
    put(changes, ['status', stepId], run.status.get(stepId))
    put(changes, ['outputs', stepId], run.outputs.get(stepId))
    const entry = this.flow.stepJSON(stepId)
    put(changes, ['flow', 'labels', stepId], entry.label)
    put(changes, ['flow', 'sources', stepId], entry.sources)
  }

  /** The lists that only grow: their items from where the base had them. */
  private appended(changes: Collected, base: Mark): void {
    const { budgets } = this
    const summary = this.flow.summaryJSON(base.outputs)
    if (summary.outputs.length > 0)
      changes.append.push([['flow', 'text', 'outputs'], summary.outputs, base.outputs])
    if (budgets.seenPlanHashes.size > base.hashes)
      changes.append.push([['seenPlanHashes'], budgets.planHashesFrom(base.hashes), base.hashes])
  }
}
