import { itemAt, numberAt, stringAt } from '@plan/shell/common'
import type { CompiledPlan, CompiledStep, StepReference } from '../types/compiled-plan.js'
import { dependentRowsBy } from '../util/dependent-rows.js'
import type { GraphAnalysis } from './analyze-graph.js'
import { PlanColumns } from './plan-columns.js'
import type { PlanHasher } from './plan-hasher.js'
import type { PlanLinks } from './plan-links.js'
import type { StepTable } from './step-table.js'

/** The ids of `nodes`, in an array of exactly their number. */
function idsOf(ids: readonly string[], nodes: readonly number[]): string[] {
  const out: string[] = new Array(nodes.length)
  for (let position = 0; position < nodes.length; position += 1)
    out[position] = stringAt(ids, numberAt(nodes, position))
  return out
}

/**
 * The approved, deep-frozen plan of an acyclic, issue-free graph. `steps`, `levels` and `hash`
 * are enumerable getters over the compiler's columns, made when first read: many plans are never
 * hashed, and one only checked, signed or run never needs its step objects or its levels.
 */
export function buildCompiledPlan(
  table: StepTable,
  links: PlanLinks,
  graph: GraphAnalysis,
): CompiledPlan {
  const columns = new PlanColumns({
    ids: links.ids,
    rowOf: links.rowOf,
    tools: table.tools,
    args: links.args,
    references: links.references,
    dependencyStart: links.dependencyStart,
    dependencyTarget: links.dependencyTarget,
    level: graph.level,
    levelCount: graph.criticalPathLength,
  })
  return compiledPlanOf(columns, idsOf(links.ids, graph.order), graph.criticalPathLength)
}

const NO_REFERENCES: readonly StepReference[] = Object.freeze([])
// The columns of every one-step plan, shared: a plan's columns are only read.
const ONE_ROW = new Int32Array(1)
const NO_EDGES = new Int32Array(2)
const NO_TARGETS = new Int32Array(0)
const ONE_STEP_REFERENCES: readonly (readonly StepReference[])[] = Object.freeze([NO_REFERENCES])

/**
 * {@link buildCompiledPlan} for one step without dependencies or references, arguments checked
 * (a model turn's one call), without a general plan's tables. `ids`, frozen, is also the order.
 */
export function buildOneStepPlan(
  ids: readonly [string],
  tool: string,
  args: CompiledStep['args'],
): CompiledPlan {
  const columns = new PlanColumns({
    ids,
    rowOf: ONE_ROW,
    tools: [tool],
    args: [args],
    references: ONE_STEP_REFERENCES,
    dependencyStart: NO_EDGES,
    dependencyTarget: NO_TARGETS,
    level: ONE_ROW,
    levelCount: 1,
  })
  return compiledPlanOf(columns, ids, 1)
}

/** The frozen plan object of `columns`, with its keys in order. */
function compiledPlanOf(
  columns: PlanColumns,
  order: readonly string[],
  criticalPathLength: number,
): CompiledPlan {
  const plan = {} as PlanBody
  Object.defineProperty(plan, COLUMNS, { value: columns })
  Object.defineProperty(plan, 'steps', STEPS)
  plan.order = Object.freeze(order)
  Object.defineProperty(plan, 'levels', LEVELS)
  Object.defineProperty(plan, 'hash', HASH)
  plan.criticalPathLength = criticalPathLength
  return Object.freeze(plan) as CompiledPlan
}

/** A compiled plan until its keys are added, in order: `steps`, `order`, `levels`, `hash`, `criticalPathLength`. */
type PlanBody = { -readonly [K in 'order' | 'criticalPathLength']: CompiledPlan[K] }

/**
 * Each compiled plan's columns, as a non-enumerable, read-only own property (a WeakMap would cost
 * every scavenge its ephemeron table, about a sixth of a small plan's compile). Whoever reaches it
 * can read steps and hash, no more: the columns' fields are private, nothing shared is writable.
 */
const COLUMNS = Symbol('@plan/core.planColumns')

/** The columns of `plan`; a TypeError for an object that is not a compiled plan. */
function columnsOf(plan: object & { readonly [COLUMNS]?: PlanColumns }): PlanColumns {
  const columns = Object.hasOwn(plan, COLUMNS) ? plan[COLUMNS] : undefined
  if (columns === undefined) throw new TypeError('Not a plan compiled by @plan/core.')
  return columns
}

/** A plan's steps by position, without step objects: guard and executor keep only what they use. */
export type PlanSteps = Pick<
  PlanColumns,
  'size' | 'ids' | 'positions' | 'step' | 'tool' | 'dependencies' | 'dependents'
>

/** A view of step objects by position (for a plan that is not a compiled one, and tests). */
export function stepsView(steps: readonly CompiledStep[]): PlanSteps {
  const ids = steps.map((step) => step.id)
  const positions = new Map(ids.map((id, position) => [id, position]))
  const dependencies = steps.map((step) =>
    Int32Array.from(step.dependsOn.flatMap((id) => positions.get(id) ?? [])),
  )
  return {
    size: steps.length,
    ids,
    positions,
    step: (position) => itemAt(steps, position),
    tool: (position) => itemAt(steps, position).tool,
    dependencies: (position) => itemAt(dependencies, position),
    dependents: () => dependentRowsBy(steps.length, (position) => itemAt(dependencies, position)),
  }
}

/** `plan`'s steps by position: read from a compiled plan's columns, else from `plan.steps`. */
export function planSteps(plan: CompiledPlan): PlanSteps {
  return Object.hasOwn(plan, COLUMNS) ? columnsOf(plan) : stepsView(plan.steps)
}

/**
 * A compiled plan's hasher, {@link PlanHasher.detach}ed to answer `plan.hash` without the plan
 * (text kept if at most `maxLength` long); undefined past one chunk of steps or for a foreign plan.
 */
export function detachedHasher(plan: CompiledPlan, maxLength: number): PlanHasher | undefined {
  if (!Object.hasOwn(plan, COLUMNS)) return undefined
  const hasher = columnsOf(plan).hasher()
  return hasher.detach(maxLength) ? hasher : undefined
}

/** A getter of every compiled plan: one per key, so that plans share a hidden class. */
function columnsGetter<T>(read: (columns: PlanColumns) => T): PropertyDescriptor {
  return {
    enumerable: true,
    get(this: object): T {
      return read(columnsOf(this))
    },
  }
}

const STEPS = columnsGetter((columns) => columns.steps())
const LEVELS = columnsGetter((columns) => columns.levels())
const HASH = columnsGetter((columns) => columns.hash())
