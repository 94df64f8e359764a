import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { analyzeGraph } from './analyze-graph.js'

describe('analyzeGraph', () => {
  it('should group nodes by level in index order and order them level by level', () => {
    const graph = analyzeGraph([[], [0], [0], [1, 2], [], [4]])
    expect(graph.levels).toEqual([[0, 4], [1, 2, 5], [3]])
    expect(graph.order).toEqual([0, 4, 1, 2, 5, 3])
    expect([...graph.level]).toEqual([0, 1, 1, 2, 0, 1])
    expect(graph.criticalPathLength).toBe(3)
    expect(graph.cycles).toEqual([])
  })

  it('should order nothing and name the cycle of a cyclic graph', () => {
    const graph = analyzeGraph([[], [2], [1]])
    expect(graph.order).toEqual([])
    expect(graph.levels).toEqual([])
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
        expect(graph.levels.flat()).toEqual(graph.order)
      }),
    )
  })
})
