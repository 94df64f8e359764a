import { int32At, stringAt } from '@plan/shell/common'
import { type PlanSteps, planSteps } from '../compile/build-compiled-plan.js'
import type { CompiledPlan, CompiledStep } from '../types/compiled-plan.js'
import { type DependentRows, dependentsAt } from '../util/dependent-rows.js'

const NO_IDS: readonly string[] = Object.freeze([])

/**
 * A plan's steps as the scheduler sees them, in columns by position: the plan's id-to-position
 * map, and typed arrays for the dependents (compressed rows) and the priority (longest remaining
 * chain): a plan of a million steps costs a few bytes per step here, and no step object is kept.
 */
export class StepGraph {
  /** The steps, by position (their `index`). */
  readonly steps: PlanSteps
  /** Longest remaining chain (in steps) from each step to the end of the plan, by position. */
  readonly priority: Int32Array
  readonly #rows: DependentRows

  /** @param priority by position; computed from `order` (a topological order) when omitted */
  constructor(steps: PlanSteps, order: readonly string[], priority?: Int32Array) {
    this.steps = steps
    this.#rows = steps.dependents()
    this.priority = priority ?? this.#remainingDepth(order)
  }

  get size(): number {
    return this.steps.size
  }

  /** Position of a step in the plan, or -1 for an id that is not a step of it. */
  position(stepId: string): number {
    return this.steps.positions.get(stepId) ?? -1
  }

  id(position: number): string {
    return stringAt(this.steps.ids, position)
  }

  step(stepId: string): CompiledStep | undefined {
    const at = this.steps.positions.get(stepId)
    return at === undefined ? undefined : this.steps.step(at)
  }

  /** Positions of the steps that depend on the step at `position`. */
  dependentPositions(position: number): Int32Array {
    return dependentsAt(this.#rows, position)
  }

  /** Ids of the steps that depend on `stepId`, in plan order. */
  dependents(stepId: string): readonly string[] {
    const at = this.steps.positions.get(stepId)
    if (at === undefined) return NO_IDS
    return Array.from(this.dependentPositions(at), (index) => this.id(index))
  }

  #remainingDepth(order: readonly string[]): Int32Array {
    const depth = new Int32Array(this.steps.size)
    for (let position = order.length - 1; position >= 0; position -= 1) {
      const at = this.steps.positions.get(stringAt(order, position))
      if (at === undefined) continue
      let longest = 0
      for (const dependent of this.dependentPositions(at))
        longest = Math.max(longest, int32At(depth, dependent))
      depth[at] = longest + 1
    }
    return depth
  }
}

/** Builds the scheduler's view of a compiled plan, in O(steps + edges). */
export function createStepGraph(plan: CompiledPlan): StepGraph {
  return new StepGraph(planSteps(plan), plan.order)
}
