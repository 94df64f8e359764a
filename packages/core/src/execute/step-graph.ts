import type { CompiledPlan, CompiledStep } from '../types/compiled-plan.js'
import { stringAt } from '../util/item-at.js'

/** The steps of a plan as the scheduler sees them: lookups, dependents and priorities. */
export interface StepGraph {
  readonly steps: ReadonlyMap<string, CompiledStep>
  /** The steps that depend on each step (only steps that have dependents are keys). */
  readonly dependents: ReadonlyMap<string, readonly string[]>
  /** Longest remaining chain (in steps) from each step to the end of the plan. */
  readonly priority: ReadonlyMap<string, number>
  /** Each step's position in the plan, to break priority ties in plan order. */
  readonly index: ReadonlyMap<string, number>
}

/** Builds the lookups the scheduler needs from a compiled plan, in O(steps + edges). */
export function createStepGraph(plan: CompiledPlan): StepGraph {
  const steps = new Map<string, CompiledStep>()
  const index = new Map<string, number>()
  const dependents = new Map<string, string[]>()
  for (const step of plan.steps) {
    steps.set(step.id, step)
    index.set(step.id, step.index)
    for (const dependency of step.dependsOn) {
      const list = dependents.get(dependency)
      if (list === undefined) dependents.set(dependency, [step.id])
      else list.push(step.id)
    }
  }
  return { steps, dependents, priority: remainingDepth(plan, steps, dependents), index }
}

function remainingDepth(
  plan: CompiledPlan,
  steps: ReadonlyMap<string, CompiledStep>,
  dependents: ReadonlyMap<string, readonly string[]>,
): Map<string, number> {
  const depth = new Map<string, number>()
  for (let position = plan.order.length - 1; position >= 0; position -= 1) {
    const id = stringAt(plan.order, position)
    let longest = 0
    for (const dependent of dependents.get(id) ?? [])
      longest = Math.max(longest, depth.get(dependent) ?? 0)
    if (steps.has(id)) depth.set(id, longest + 1)
  }
  return depth
}
