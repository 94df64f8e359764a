import type { CompiledPlan, CompiledStep } from '../types/compiled-plan.js'
import type { GraphAnalysis } from './analyze-graph.js'
import { PlanColumns } from './plan-columns.js'
import { PlanHasher } from './plan-hasher.js'
import type { PlanLinks } from './plan-links.js'
import type { StepTable } from './step-table.js'

/** The ids of `nodes`, in an array of exactly their number. */
function idsOf(ids: readonly string[], nodes: readonly number[]): string[] {
  const out: string[] = new Array(nodes.length)
  for (let position = 0; position < nodes.length; position += 1)
    out[position] = ids[nodes[position] as number] as string
  return out
}

/**
 * The approved plan of an acyclic, issue-free graph: its steps, topological order, levels,
 * critical path length and hash, all deep-frozen. `steps` and `hash` are enumerable getters,
 * made from the compiler's columns when first read: many plans are never hashed, and a plan
 * that is only checked or signed never needs its steps as objects.
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
  })
  const levels: (readonly string[])[] = new Array(graph.levels.length)
  for (let level = 0; level < graph.levels.length; level += 1)
    levels[level] = Object.freeze(idsOf(links.ids, graph.levels[level] as number[]))
  const plan = {} as PlanBody
  Object.defineProperty(plan, COLUMNS, { value: columns })
  Object.defineProperty(plan, HASHER, { value: new PlanHasher(columns) })
  Object.defineProperty(plan, 'steps', STEPS)
  plan.order = Object.freeze(idsOf(links.ids, graph.order))
  plan.levels = Object.freeze(levels)
  Object.defineProperty(plan, 'hash', HASH)
  plan.criticalPathLength = graph.criticalPathLength
  return Object.freeze(plan) as CompiledPlan
}

/** A compiled plan until its keys are added, in order: `steps`, `order`, `levels`, `hash`, `criticalPathLength`. */
type PlanBody = { -readonly [K in 'order' | 'levels' | 'criticalPathLength']: CompiledPlan[K] }

const COLUMNS = Symbol('@plan/core.planColumns')
const HASHER = Symbol('@plan/core.planHasher')

/** Every compiled plan's `steps`: one getter, so that plans share a hidden class. */
const STEPS: PropertyDescriptor = {
  enumerable: true,
  get(this: { readonly [COLUMNS]: PlanColumns }): readonly CompiledStep[] {
    return this[COLUMNS].steps()
  },
}

/** Every compiled plan's `hash`: one getter, so that plans share a hidden class. */
const HASH: PropertyDescriptor = {
  enumerable: true,
  get(this: { readonly [HASHER]: PlanHasher }): string {
    return this[HASHER].digest()
  },
}
