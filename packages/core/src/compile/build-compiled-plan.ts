import type { CompiledPlan, CompiledStep, StepReference } from '../types/compiled-plan.js'
import type { GraphAnalysis } from './analyze-graph.js'
import { PlanHasher } from './plan-hasher.js'
import type { PlanLinks } from './plan-links.js'
import type { StepTable } from './step-table.js'

/**
 * A step's dependencies as hashed: explicit and implied by references alike, without
 * duplicates, sorted — so writing an implied dependency out does not change the hash.
 */
export function hashedDependencies(raw: readonly string[]): readonly string[] {
  if (raw.length < 2) return raw
  if (raw.length === 2) {
    const [left, right] = raw as [string, string]
    return left === right ? [left] : left < right ? raw : [right, left]
  }
  return [...new Set(raw)].sort()
}

/** Each node's compiled step (deep-frozen), fed to `hasher` in node order. */
function compiledSteps(
  table: StepTable,
  links: PlanLinks,
  graph: GraphAnalysis,
  hasher: PlanHasher,
): CompiledStep[] {
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
    // Keys in sorted order: the literal below is canonical JSON (see hashJson) as it stands.
    hasher.add({ args, dependsOn: hashedDependencies(dependsOn), id, tool })
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
  const hasher = new PlanHasher()
  const steps = compiledSteps(table, links, graph, hasher)
  const ids = links.ids
  const idAt = (node: number) => ids[node] as string
  const levels: (readonly string[])[] = new Array(graph.levels.length)
  for (let level = 0; level < graph.levels.length; level += 1)
    levels[level] = Object.freeze((graph.levels[level] as number[]).map(idAt))
  return Object.freeze({
    steps: Object.freeze(steps),
    order: Object.freeze(graph.order.map(idAt)),
    levels: Object.freeze(levels),
    hash: hasher.digest(),
    criticalPathLength: graph.criticalPathLength,
  })
}
