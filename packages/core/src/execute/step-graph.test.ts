import { describe, expect, it } from 'vitest'
import type { CompiledPlan, CompiledStep } from '../types/compiled-plan.js'
import { createStepGraph } from './step-graph.js'

function planOf(edges: Record<string, readonly string[]>, order: readonly string[]): CompiledPlan {
  const steps: CompiledStep[] = Object.entries(edges).map(([id, dependsOn], index) => ({
    id,
    index,
    tool: 'work',
    args: {},
    dependsOn,
    references: [],
    level: 0,
  }))
  return { steps, order } as unknown as CompiledPlan
}

describe('createStepGraph', () => {
  it('should give each step its dependents and its longest remaining chain', () => {
    // a → b → d, a → c, e alone
    const graph = createStepGraph(
      planOf({ a: [], b: ['a'], c: ['a'], d: ['b'], e: [] }, ['a', 'e', 'b', 'c', 'd']),
    )
    expect(graph.dependents('a')).toEqual(['b', 'c'])
    expect(graph.dependents('b')).toEqual(['d'])
    expect(graph.dependents('d')).toEqual([])
    expect(graph.dependents('unknown')).toEqual([])
    expect([...graph.priority]).toEqual([3, 2, 1, 1, 1])
    expect(graph.position('c')).toBe(2)
    expect(graph.position('unknown')).toBe(-1)
    expect(graph.step('d')?.dependsOn).toEqual(['b'])
  })
})
