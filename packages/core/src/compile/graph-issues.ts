import { createIssue, int32At, numberAt, type PlanIssue, stringAt } from '@plan/shell/common'
import type { Budgets } from '../schema/policy-schema.js'
import type { GraphAnalysis } from './analyze-graph.js'
import type { Path } from './argument-walk.js'
import type { PlanLinks } from './plan-links.js'
import { quote, stepPath } from './step-path.js'

function cycleIssues(graph: GraphAnalysis, links: PlanLinks, base: Path, issues: PlanIssue[]) {
  for (const cycle of graph.cycles) {
    const cycleIds = cycle.map((node) => stringAt(links.ids, node))
    const first = numberAt(cycle, 0)
    issues.push({
      ...createIssue(
        'cyclic_dependency',
        `Steps form a cycle: ${cycleIds.join(' → ')}.`,
        stepPath(base, int32At(links.rowOf, first), 'depends_on'),
        'Remove one dependency of the cycle; a plan must be a DAG.',
        links.ids[first],
      ),
      cycle: cycleIds,
    })
  }
}

function depthIssue(
  graph: GraphAnalysis,
  links: PlanLinks,
  base: Path,
  maxDepth: number,
): PlanIssue | undefined {
  if (graph.criticalPathLength <= maxDepth) return undefined
  // The first node of the last level: the end of a longest chain.
  const deepest = Math.max(0, graph.level.indexOf(graph.criticalPathLength - 1))
  return createIssue(
    'budget_exceeded',
    `The longest dependency chain has ${graph.criticalPathLength} steps; the policy allows ${maxDepth}.`,
    stepPath(base, int32At(links.rowOf, deepest)),
    'Run independent steps in parallel instead of chaining them.',
    links.ids[deepest],
  )
}

function fanOutIssues(links: PlanLinks, base: Path, maxFanOut: number, issues: PlanIssue[]) {
  // Without edges every fan-out is 0, within any budget (the schema's maxFanOut is positive).
  if (links.edgeCount === 0 && maxFanOut >= 0) return
  const fanOut = new Int32Array(links.size)
  const targets = links.dependencyTarget
  for (let edge = 0; edge < links.edgeCount; edge += 1) {
    const dependency = int32At(targets, edge)
    fanOut[dependency] = int32At(fanOut, dependency) + 1
  }
  for (let node = 0; node < fanOut.length; node += 1) {
    const count = int32At(fanOut, node)
    if (count <= maxFanOut) continue
    issues.push(
      createIssue(
        'budget_exceeded',
        `${count} steps depend on step ${quote(links.ids[node] ?? '')}; the policy allows ${maxFanOut}.`,
        stepPath(base, int32At(links.rowOf, node)),
        'Reduce the number of direct dependents.',
        links.ids[node],
      ),
    )
  }
}

/**
 * Reports the graph's cycles (one issue each, naming it) or, if acyclic, a dependency chain longer
 * than `budgets.maxDepth` and steps with more than `budgets.maxFanOut` direct dependents.
 */
export function reportGraphIssues(
  graph: GraphAnalysis,
  links: PlanLinks,
  budgets: Pick<Budgets, 'maxDepth' | 'maxFanOut'>,
  base: Path,
  issues: PlanIssue[],
): void {
  cycleIssues(graph, links, base, issues)
  if (graph.cycles.length > 0) return
  const deep = depthIssue(graph, links, base, budgets.maxDepth)
  if (deep !== undefined) issues.push(deep)
  fanOutIssues(links, base, budgets.maxFanOut, issues)
}
