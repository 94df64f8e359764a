import type { CompiledPlan, PlanIssue } from '@plan/core'
import { isCompiledPlan, unreadableIssue } from '@plan/core/adapter'
import { isRecord, stringAt, valueAt } from '@plan/shell/common'
import { type IssuesByStep, issuesByStep } from './issues-by-step.js'

/** How a step fared, for rendering; run-time statuses plus `rejected` for plan issues. */
export type StepMark =
  | 'approved'
  | 'rejected'
  | 'pending'
  | 'running'
  | 'done'
  | 'failed'
  | 'skipped'
  | 'denied'

/** Options shared by the renderers. */
export interface RenderOptions {
  /** Issues of a rejected plan (or denials at run time); their steps are marked. */
  readonly issues?: readonly PlanIssue[]
  /** Run-time status per step id; overrides the compile-time mark. */
  readonly status?: Readonly<Record<string, StepMark>>
  /** Show arguments next to each step (text and Mermaid). Default true. */
  readonly showArgs?: boolean
}

/** A step as renderers see it, from a compiled plan or, leniently, from a rejected one. */
export interface StepView {
  readonly key: string
  readonly id: string
  readonly tool: string
  readonly args: unknown
  readonly dependsOn: readonly string[]
  readonly level: number
  readonly mark: StepMark
  readonly issues: readonly PlanIssue[]
}

/** The whole plan as renderers see it. */
export interface PlanView {
  readonly approved: boolean
  readonly hash: string | undefined
  readonly steps: readonly StepView[]
  /** Issues that belong to no step. */
  readonly planIssues: readonly PlanIssue[]
  readonly cycles: readonly (readonly string[])[]
}

const MAX_RENDERED_STEPS = 2000

// A run-time status wins; then a step with an issue of its own or on a cycle is rejected.
function markFor(
  status: Readonly<Record<string, StepMark>>,
  sorted: IssuesByStep,
): (id: string, index: number) => StepMark {
  return (id, index) =>
    Object.hasOwn(status, id)
      ? valueAt(status, id)
      : sorted.byIndex.has(index) || sorted.onCycle.has(id)
        ? 'rejected'
        : 'approved'
}

function text(value: unknown, fallback: string): string {
  return typeof value === 'string' && value.length > 0 ? value : fallback
}

function isCompiledPlanSafely(plan: unknown): plan is CompiledPlan {
  try {
    return isCompiledPlan(plan)
  } catch {
    return false
  }
}

/** Builds the view renderers draw, from a compiled plan or a raw (possibly rejected) plan. */
export function planView(plan: unknown, options: RenderOptions = {}): PlanView {
  const issues = options.issues ?? []
  const status = options.status ?? {}
  const cycles = issues.flatMap((found) => (found.cycle === undefined ? [] : [found.cycle]))

  if (isCompiledPlanSafely(plan)) {
    const shown = plan.steps.slice(0, MAX_RENDERED_STEPS)
    const sorted = issuesByStep(
      issues,
      shown.map((step) => step.id),
    )
    const markOf = markFor(status, sorted)
    const steps = shown.map((step, index) => ({
      key: `s${index}`,
      id: step.id,
      tool: step.tool,
      args: step.args,
      dependsOn: step.dependsOn,
      level: step.level,
      mark: markOf(step.id, index),
      issues: sorted.byIndex.get(index) ?? [],
    }))
    const { planIssues } = sorted
    return { approved: issues.length === 0, hash: plan.hash, steps, planIssues, cycles }
  }

  let records: Record<string, unknown>[]
  try {
    records = rawRecords(plan)
  } catch (error) {
    const planIssues = [...issues, unreadableIssue('invalid_plan', 'plan', error)]
    // Every issue is listed with the plan: there are no steps to put them under.
    return { approved: false, hash: undefined, steps: [], planIssues, cycles }
  }
  const ids = records.map((record, index) => text(record.id, `#${index}`))
  const sorted = issuesByStep(issues, ids)
  const markOf = markFor(status, sorted)
  const steps: StepView[] = records.map((record, index) => {
    const id = stringAt(ids, index)
    return {
      key: `s${index}`,
      id,
      tool: text(record.tool, '?'),
      args: record.args,
      dependsOn: record.deps as string[],
      level: -1,
      mark: markOf(id, index),
      issues: sorted.byIndex.get(index) ?? [],
    }
  })
  const { planIssues } = sorted
  const leveled = blockedByCycles(assignLevels(steps), status)
  return { approved: false, hash: undefined, steps: leveled, planIssues, cycles }
}

/**
 * A step with no issue of its own that depends, directly or not, on a cycle can never run:
 * it is drawn as skipped, not approved (a run-time status still wins).
 */
function blockedByCycles(
  steps: StepView[],
  status: Readonly<Record<string, StepMark>>,
): StepView[] {
  return steps.map((step) =>
    step.level < 0 && step.mark === 'approved' && !Object.hasOwn(status, step.id)
      ? { ...step, mark: 'skipped' }
      : step,
  )
}

/**
 * The steps of a raw plan read once, leniently, into plain records (`deps` holds the string
 * dependencies); throws when a getter or a Proxy trap does.
 */
function rawRecords(plan: unknown): Record<string, unknown>[] {
  const rawSteps: unknown = Array.isArray(plan)
    ? plan
    : typeof plan === 'object' && plan !== null && 'steps' in plan
      ? plan.steps
      : undefined
  if (!Array.isArray(rawSteps)) return []
  const records: Record<string, unknown>[] = []
  const count = Math.min(rawSteps.length, MAX_RENDERED_STEPS)
  for (let index = 0; index < count; index += 1) {
    const raw: unknown = rawSteps[index]
    const record = isRecord(raw) ? raw : {}
    const deps = Array.isArray(record.depends_on)
      ? record.depends_on
      : Array.isArray(record.dependsOn)
        ? record.dependsOn
        : []
    records.push({
      id: record.id,
      tool: record.tool,
      args: record.args,
      deps: deps
        .slice(0, MAX_RENDERED_STEPS)
        .filter((dep: unknown): dep is string => typeof dep === 'string'),
    })
  }
  return records
}

/** Levels for a raw plan: longest chain of known dependencies; steps on cycles get -1. */
function assignLevels(steps: StepView[]): StepView[] {
  const byId = new Map<string, StepView>()
  for (const step of steps) if (!byId.has(step.id)) byId.set(step.id, step)
  const levels = new Map<string, number>()
  const visiting = new Set<string>()
  const levelOf = (id: string, depth: number): number => {
    const known = levels.get(id)
    if (known !== undefined) return known
    const step = byId.get(id)
    if (step === undefined || visiting.has(id) || depth > 512) return -1
    visiting.add(id)
    let level = 0
    for (const dep of step.dependsOn) {
      if (!byId.has(dep)) continue
      const found = levelOf(dep, depth + 1)
      if (found < 0) {
        level = -1
        break
      }
      level = Math.max(level, found + 1)
    }
    visiting.delete(id)
    levels.set(id, level)
    return level
  }
  return steps.map((step) => ({ ...step, level: levelOf(step.id, 0) }))
}

/** One argument value as JSON, without serialising huge arrays or throwing. */
function renderValue(value: unknown): string {
  try {
    if (Array.isArray(value) && value.length > 100) return `[… ${value.length} items]`
    if (typeof value === 'string' && value.length > 1000)
      return JSON.stringify(value.slice(0, 1000))
    return JSON.stringify(value) ?? String(value)
  } catch {
    return '…'
  }
}

/** A short, single-line rendering of arguments. */
export function summarizeArgs(args: unknown, limit = 80): string {
  if (typeof args !== 'object' || args === null) return ''
  const parts: string[] = []
  let length = 0
  try {
    for (const [key, value] of Object.entries(args)) {
      const rendered = renderValue(value)
      parts.push(`${key}=${rendered}`)
      length += key.length + rendered.length + 2
      if (length > limit) break
    }
  } catch {
    parts.push('…')
  }
  const joined = parts.join(' ')
  return joined.length > limit ? `${joined.slice(0, limit - 1)}…` : joined
}
