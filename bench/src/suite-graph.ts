import * as graphlib from '@dagrejs/graphlib'
import { analyzeGraph } from '@plan/core/internal'
import { DirectedGraph } from 'graphology'
import { hasCycle, topologicalSort } from 'graphology-dag'
import toposort from 'toposort'
import { type Row, round, roundSpread, type Spread, timeRuns } from './measure.ts'
import { chain, randomDag, wideLayers } from './plans.ts'

/** The seed article's algorithm, ported as written: a `queue.pop(0)` Kahn loop. */
function seedKahn(deps: readonly (readonly number[])[]): string[] {
  const graph: Record<string, string[]> = {}
  const inDegree: Record<string, number> = {}
  deps.forEach((_, node) => {
    graph[`n${node}`] = []
    inDegree[`n${node}`] = 0
  })
  deps.forEach((list, node) => {
    for (const dep of list) {
      ;(graph[`n${dep}`] as string[]).push(`n${node}`)
      inDegree[`n${node}`] = (inDegree[`n${node}`] as number) + 1
    }
  })
  const queue = Object.keys(graph).filter((node) => inDegree[node] === 0)
  const order: string[] = []
  while (queue.length > 0) {
    const current = queue.shift() as string
    order.push(current)
    for (const neighbour of graph[current] as string[]) {
      inDegree[neighbour] = (inDegree[neighbour] as number) - 1
      if (inDegree[neighbour] === 0) queue.push(neighbour)
    }
  }
  if (order.length !== deps.length) throw new Error('cycle')
  return order
}

function withGraphology(deps: readonly (readonly number[])[]) {
  const graph = new DirectedGraph()
  for (let node = 0; node < deps.length; node += 1) graph.addNode(node)
  deps.forEach((list, node) => {
    for (const dep of list) graph.addDirectedEdge(dep, node)
  })
  if (hasCycle(graph)) throw new Error('cycle')
  return topologicalSort(graph)
}

function withGraphlib(deps: readonly (readonly number[])[]) {
  const graph = new graphlib.Graph({ directed: true })
  for (let node = 0; node < deps.length; node += 1) graph.setNode(String(node))
  deps.forEach((list, node) => {
    for (const dep of list) graph.setEdge(String(dep), String(node))
  })
  return graphlib.alg.topsort(graph)
}

function withToposort(deps: readonly (readonly number[])[]) {
  const edges: [string, string][] = []
  deps.forEach((list, node) => {
    for (const dep of list) edges.push([String(dep), String(node)])
  })
  return toposort.array(
    deps.map((_, node) => String(node)),
    edges,
  )
}

/** Our cycle check + topological order against the libraries people would pick, same graphs. */
export async function graphSuite(): Promise<Row[]> {
  const graphs: [string, number[][]][] = [
    ['chain of 10,000', chain(10_000)],
    ['20 layers × 100, full bipartite edges (198,000 edges)', wideLayers(20, 100)],
    ['random DAG, 10,000 nodes, ≤3 deps each', randomDag(10_000, 3)],
    ['random DAG, 100,000 nodes, ≤3 deps each', randomDag(100_000, 3)],
  ]
  // Time the steady state: let the JIT settle on every graph before any is measured.
  for (let pass = 0; pass < 10; pass += 1) for (const [, deps] of graphs) analyzeGraph(deps)
  const rows: Row[] = []
  for (const [name, deps] of graphs) {
    const ours = timeRuns(() => analyzeGraph(deps))
    const contenders: [string, () => unknown][] = [
      ['graphology + graphology-dag', () => withGraphology(deps)],
      ['@dagrejs/graphlib', () => withGraphlib(deps)],
      ['toposort', () => withToposort(deps)],
      ['seed algorithm (pop(0) queue)', () => seedKahn(deps)],
    ]
    for (const [label, fn] of contenders) {
      let value: Spread | undefined
      let note: string | undefined
      try {
        value = timeRuns(fn, deps.length >= 100_000 ? 3 : 5, 1)
      } catch (error) {
        value = undefined
        note = `failed: ${(error as Error).message.slice(0, 60)}`
      }
      rows.push({
        suite: 'graph',
        case: `@plan analyzeGraph, ${name}`,
        value: round(ours.median),
        valueSpread: roundSpread(ours),
        unit: 'ms',
        baseline: label,
        baselineValue: value === undefined ? null : round(value.median),
        ...(value === undefined ? {} : { baselineSpread: roundSpread(value) }),
        ratio: value === undefined ? null : round(ours.median / value.median),
        ...(note === undefined ? {} : { note }),
      })
    }
  }
  return rows
}
