import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  analyzeGraph,
  forwardDependencies,
  type GraphAnalysis,
  orderDependencies,
} from './analyze-graph.js'

/** The nodes of each level, in the order `order` lists them. */
function levelsOf(graph: GraphAnalysis): number[][] {
  const levels: number[][] = Array.from({ length: graph.criticalPathLength }, () => [])
  for (const node of graph.order) levels[graph.level[node] ?? 0]?.push(node)
  return levels
}

describe('analyzeGraph', () => {
  it('should group nodes by level in index order and order them level by level', () => {
    const graph = analyzeGraph([[], [0], [0], [1, 2], [], [4]])
    expect(levelsOf(graph)).toEqual([[0, 4], [1, 2, 5], [3]])
    expect(graph.order).toEqual([0, 4, 1, 2, 5, 3])
    expect([...graph.level]).toEqual([0, 1, 1, 2, 0, 1])
    expect(graph.criticalPathLength).toBe(3)
    expect(graph.cycles).toEqual([])
  })

  it('should order nothing and name the cycle of a cyclic graph', () => {
    const graph = analyzeGraph([[], [2], [1]])
    expect(graph.order).toEqual([])
    expect(levelsOf(graph)).toEqual([])
    expect(graph.cycles).toEqual([[1, 2, 1]])
  })

  it('should put every node of a random DAG after its dependencies, once', () => {
    const dag = fc.integer({ min: 1, max: 60 }).chain((size) =>
      fc.tuple(
        ...Array.from({ length: size }, (_, node) =>
          fc.uniqueArray(fc.integer({ min: 0, max: Math.max(0, node - 1) }), {
            maxLength: node === 0 ? 0 : 3,
          }),
        ),
      ),
    )
    fc.assert(
      fc.property(dag, (dependencies) => {
        const graph = analyzeGraph(dependencies)
        expect([...graph.order].sort((left, right) => left - right)).toEqual(
          dependencies.map((_, node) => node),
        )
        const position = new Map(graph.order.map((node, index) => [node, index]))
        dependencies.forEach((deps, node) => {
          for (const dep of deps)
            expect(position.get(dep) as number).toBeLessThan(position.get(node) as number)
        })
        expect(levelsOf(graph).flat()).toEqual(graph.order)
      }),
    )
  })
})

/** Dependency lists as the compressed form `orderDependencies` reads. */
function compressed(dependencies: readonly (readonly number[])[]): [Int32Array, Int32Array] {
  const start = new Int32Array(dependencies.length + 1)
  const target: number[] = []
  dependencies.forEach((deps, node) => {
    target.push(...deps)
    start[node + 1] = target.length
  })
  return [start, Int32Array.from(target)]
}

describe('forwardDependencies', () => {
  it('should analyze a graph of edges to earlier nodes as orderDependencies does', () => {
    const graph = fc
      .integer({ min: 0, max: 40 })
      .chain((size) =>
        fc.tuple(
          ...Array.from({ length: size }, () =>
            fc.uniqueArray(fc.integer({ min: 0, max: size - 1 }), { maxLength: 3 }),
          ),
        ),
      )
    fc.assert(
      fc.property(graph, (raw) => {
        const dependencies = raw.map((deps, node) => deps.filter((dep) => dep !== node))
        const [start, target] = compressed(dependencies)
        const forward = forwardDependencies(start, target)
        const backward = dependencies.some((deps, node) => deps.some((dep) => dep > node))
        if (backward) expect(forward).toBeUndefined()
        else expect(forward).toEqual(orderDependencies(start, target))
      }),
    )
  })

  it('should leave a graph with a later, self or cyclic dependency to orderDependencies', () => {
    expect(forwardDependencies(...compressed([[1], []]))).toBeUndefined()
    expect(forwardDependencies(...compressed([[1], [0]]))).toBeUndefined()
    expect(forwardDependencies(...compressed([[], [1]]))).toBeUndefined()
    expect(forwardDependencies(...compressed([[], [0], [0, 1]]))).toEqual({
      order: [0, 1, 2],
      level: Int32Array.from([0, 1, 2]),
      criticalPathLength: 3,
      cycles: [],
    })
  })
})
