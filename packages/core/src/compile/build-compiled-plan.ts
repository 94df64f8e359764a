import type { CompiledPlan, CompiledStep, StepReference } from '../types/compiled-plan.js'
import type { GraphAnalysis } from './analyze-graph.js'
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

/** Each node's compiled step (deep-frozen), in node order. */
function compiledSteps(table: StepTable, links: PlanLinks, graph: GraphAnalysis): CompiledStep[] {
  const steps: CompiledStep[] = new Array(links.size)
  for (let node = 0; node < links.size; node += 1) {
    const index = links.rowOf[node] as number
    const id = links.ids[node] as string
    const tool = table.tools[index] as string
    const args = links.args[node] as CompiledStep['args']
    const dependsOn = links.dependsOn[node] as readonly string[]
    const references = links.references[node] as readonly StepReference[]
    const level = graph.level[node] as number
    steps[node] = Object.freeze({ id, index, tool, args, dependsOn, references, level })
  }
  return steps
}

/**
 * The approved plan of an acyclic, issue-free graph: its steps, topological order, levels,
 * critical path length and hash, all deep-frozen.
 */
export function buildCompiledPlan(
  table: StepTable,
  links: PlanLinks,
  graph: GraphAnalysis,
): CompiledPlan {
  const steps = compiledSteps(table, links, graph)
  const levels: (readonly string[])[] = new Array(graph.levels.length)
  for (let level = 0; level < graph.levels.length; level += 1)
    levels[level] = Object.freeze(idsOf(links.ids, graph.levels[level] as number[]))
  const plan: PlanBody = {
    steps: Object.freeze(steps),
    order: Object.freeze(idsOf(links.ids, graph.order)),
    levels: Object.freeze(levels),
  }
  // `hash` is an enumerable getter, hashed when first read: many per-turn plans never are.
  Object.defineProperty(plan, HASHER, { value: new PlanHasher(plan.steps) })
  Object.defineProperty(plan, 'hash', HASH)
  plan.criticalPathLength = graph.criticalPathLength
  return Object.freeze(plan) as CompiledPlan
}

/** A compiled plan until its last keys are added (`hash`, then `criticalPathLength`, in order). */
type PlanBody = Omit<CompiledPlan, 'hash' | 'criticalPathLength'> & { criticalPathLength?: number }

const HASHER = Symbol('@plan/core.planHasher')

/** Every compiled plan's `hash`: one getter, so that plans share a hidden class. */
const HASH: PropertyDescriptor = {
  enumerable: true,
  get(this: { readonly [HASHER]: PlanHasher }): string {
    return this[HASHER].digest()
  },
}
