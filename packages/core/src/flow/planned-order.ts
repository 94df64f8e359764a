import { itemAt, popped } from '@plan/shell/common'
import { rowsOf } from '../util/dependent-rows.js'

/** The parts of a compiled plan's graph that {@link PlanOrder} reads. */
export interface PlanGraph {
  /** Step `n` depends on `dependencyTarget[dependencyStart[n] .. dependencyStart[n + 1])`. */
  readonly dependencyStart: ArrayLike<number>
  readonly dependencyTarget: ArrayLike<number>
  /** Indices of the steps in a topological order. */
  readonly order: ArrayLike<number>
  /** How many steps the graph has. */
  readonly size: number
}

// Most steps walked to find what depends on a step; past it, every step counts as unordered.
const WALK_BUDGET = 1 << 24

/**
 * Which steps of a plan may run after which. A step that comes before another in the
 * topological order is never one of its dependents; beyond that, the dependents of a step are
 * walked once each, on a budget past which every step counts as possibly later (fail closed).
 */
export class PlanOrder {
  readonly #position: Int32Array
  #dependents: { readonly start: Int32Array; readonly target: Int32Array } | undefined
  #spent = 0

  constructor(private readonly graph: PlanGraph) {
    this.#position = new Int32Array(graph.size)
    for (let index = 0; index < graph.order.length; index += 1)
      this.#position[itemAt(graph.order, index)] = index
  }

  /** The place of a step in the topological order. */
  position(step: number): number {
    return itemAt(this.#position, step)
  }

  /** The steps that depend on `step`, directly or not, or undefined past the budget. */
  dependentsOf(step: number): Uint8Array | undefined {
    this.#spent += this.graph.size
    if (this.#spent > WALK_BUDGET) return undefined
    const { start, target } = this.#reverse()
    const found = new Uint8Array(this.graph.size)
    const stack = [step]
    while (stack.length > 0) {
      const node = popped(stack)
      const end = itemAt(start, node + 1)
      for (let edge = itemAt(start, node); edge < end; edge += 1) {
        const next = itemAt(target, edge)
        if (found[next] === 1) continue
        found[next] = 1
        stack.push(next)
      }
    }
    return found
  }

  /** The dependency edges turned around: who depends on each step. */
  #reverse() {
    if (this.#dependents !== undefined) return this.#dependents
    const { dependencyStart, dependencyTarget, size } = this.graph
    const { starts, targets } = rowsOf(size, (emit) => {
      for (let node = 0; node < size; node += 1) {
        const end = itemAt(dependencyStart, node + 1)
        for (let edge = itemAt(dependencyStart, node); edge < end; edge += 1) {
          const dependency = itemAt(dependencyTarget, edge)
          if (dependency >= 0) emit(dependency, node)
        }
      }
    })
    this.#dependents = { start: starts, target: targets }
    return this.#dependents
  }
}
