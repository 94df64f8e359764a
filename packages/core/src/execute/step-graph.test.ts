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
    expect(graph.dependents.get('a')).toEqual(['b', 'c'])
    expect(graph.dependents.get('b')).toEqual(['d'])
    expect(graph.dependents.has('d')).toBe(false)
    expect(Object.fromEntries(graph.priority)).toEqual({ a: 3, b: 2, c: 1, d: 1, e: 1 })
    expect(graph.index.get('c')).toBe(2)
    expect(graph.steps.get('d')?.dependsOn).toEqual(['b'])
  })
})
