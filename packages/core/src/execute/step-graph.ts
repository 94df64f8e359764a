import { stepPositions } from '../compile/build-compiled-plan.js'
import type { CompiledPlan, CompiledStep } from '../types/compiled-plan.js'
import { type DependentRows, dependentRows, dependentsAt } from '../util/dependent-rows.js'
import { int32At, itemAt, stringAt } from '../util/item-at.js'

const NO_IDS: readonly string[] = Object.freeze([])

/**
 * The steps of a plan as the scheduler sees them, in columns by position in the plan: one map
 * from id to position, and typed arrays for the dependents (compressed rows) and the priority
 * (longest remaining chain), so a plan of a million steps costs a few bytes per step here.
 */
export class StepGraph {
  /** The steps, by position (their `index`). */
  readonly steps: readonly CompiledStep[]
  /** Longest remaining chain (in steps) from each step to the end of the plan, by position. */
  readonly priority: Int32Array
  readonly #position: ReadonlyMap<string, number>
  readonly #rows: DependentRows

  /**
   * @param priority by position; computed from `order` (a topological order) when omitted
   * @param positions of the step ids; made from `steps` when omitted
   */
  constructor(
    steps: readonly CompiledStep[],
    order: readonly string[],
    priority?: Int32Array,
    positions?: ReadonlyMap<string, number>,
  ) {
    this.steps = steps
    const position = positions ?? new Map(steps.map((step, index) => [step.id, index]))
    this.#position = position
    this.#rows = dependentRows(steps, (stepId) => position.get(stepId))
    this.priority = priority ?? this.#remainingDepth(order)
  }

  /** Position of a step in the plan, or -1 for an id that is not a step of it. */
  position(stepId: string): number {
    return this.#position.get(stepId) ?? -1
  }

  /** The step with this id. */
  step(stepId: string): CompiledStep | undefined {
    const at = this.#position.get(stepId)
    return at === undefined ? undefined : this.steps[at]
  }

  /** Positions of the steps that depend on the step at `position`. */
  dependentPositions(position: number): Int32Array {
    return dependentsAt(this.#rows, position)
  }

  /** Ids of the steps that depend on `stepId`, in plan order. */
  dependents(stepId: string): readonly string[] {
    const at = this.#position.get(stepId)
    if (at === undefined) return NO_IDS
    return Array.from(this.dependentPositions(at), (index) => itemAt(this.steps, index).id)
  }

  #remainingDepth(order: readonly string[]): Int32Array {
    const depth = new Int32Array(this.steps.length)
    for (let position = order.length - 1; position >= 0; position -= 1) {
      const at = this.#position.get(stringAt(order, position))
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
  return new StepGraph(plan.steps, plan.order, undefined, stepPositions(plan).positions)
}
