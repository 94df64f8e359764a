import type { CompiledPlan } from '../compile/compiled-plan.js'
import { isCompiledPlan } from '../compile/is-compiled-plan.js'
import { unreadableIssue } from '../compile/unreadable-issue.js'
import type { PlanIssue } from '../issues/plan-issue.js'

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
  const byStep = new Map<string, PlanIssue[]>()
  const planIssues: PlanIssue[] = []
  for (const found of issues) {
    if (found.stepId === undefined) planIssues.push(found)
    else byStep.set(found.stepId, [...(byStep.get(found.stepId) ?? []), found])
  }
  const status = options.status ?? {}
  const markOf = (id: string, fallback: StepMark): StepMark =>
    Object.hasOwn(status, id) ? (status[id] as StepMark) : byStep.has(id) ? 'rejected' : fallback
  const cycles = issues.flatMap((found) => (found.cycle === undefined ? [] : [found.cycle]))

  if (isCompiledPlanSafely(plan)) {
    const steps = plan.steps.slice(0, MAX_RENDERED_STEPS).map((step, index) => ({
      key: `s${index}`,
      id: step.id,
      tool: step.tool,
      args: step.args,
      dependsOn: step.dependsOn,
      level: step.level,
      mark: markOf(step.id, 'approved'),
      issues: byStep.get(step.id) ?? [],
    }))
    return { approved: issues.length === 0, hash: plan.hash, steps, planIssues, cycles }
  }

  let steps: StepView[]
  try {
    steps = rawStepViews(plan, byStep, markOf)
  } catch (error) {
    steps = []
    planIssues.push(unreadableIssue('invalid_plan', 'plan', error))
  }
  return { approved: false, hash: undefined, steps: assignLevels(steps), planIssues, cycles }
}

/** Step views of a raw plan, read leniently; throws when a getter or a Proxy trap does. */
function rawStepViews(
  plan: unknown,
  byStep: ReadonlyMap<string, PlanIssue[]>,
  markOf: (id: string, fallback: StepMark) => StepMark,
): StepView[] {
  const rawSteps: unknown = Array.isArray(plan)
    ? plan
    : typeof plan === 'object' && plan !== null
      ? (plan as { steps?: unknown }).steps
      : undefined
  if (!Array.isArray(rawSteps)) return []
  const seen = new Set<string>()
  const steps: StepView[] = []
  const count = Math.min(rawSteps.length, MAX_RENDERED_STEPS)
  for (let index = 0; index < count; index += 1) {
    const raw: unknown = rawSteps[index]
    const record = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {}
    const id = text(record.id, `#${index}`)
    const deps = Array.isArray(record.depends_on)
      ? record.depends_on
      : Array.isArray(record.dependsOn)
        ? record.dependsOn
        : []
    const duplicate = seen.has(id)
    seen.add(id)
    const own = duplicate ? [] : (byStep.get(id) ?? [])
    steps.push({
      key: `s${index}`,
      id,
      tool: text(record.tool, '?'),
      args: record.args,
      dependsOn: deps
        .slice(0, MAX_RENDERED_STEPS)
        .filter((dep): dep is string => typeof dep === 'string'),
      level: -1,
      mark: duplicate ? 'rejected' : markOf(id, 'approved'),
      issues: own,
    })
  }
  return steps
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
