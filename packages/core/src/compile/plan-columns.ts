import type { CompiledStep, StepReference } from '../types/compiled-plan.js'
import type { HashedStep, HashSource } from './plan-hasher.js'
import { hashedDependenciesInto, NO_DEPENDENCIES } from './plan-hasher.js'

const NO_IDS: readonly string[] = Object.freeze([])

/** What the columns are made of: one entry per graph node, in plan order. */
export interface PlanColumnsInput {
  readonly ids: readonly string[]
  /** Plan index of each node. */
  readonly rowOf: Int32Array
  /** Tool name of each plan row (not node). */
  readonly tools: readonly (string | undefined)[]
  readonly args: readonly CompiledStep['args'][]
  readonly references: readonly (readonly StepReference[])[]
  /**
   * Node `n` depends on the nodes `dependencyTarget[dependencyStart[n] .. dependencyStart[n + 1])`:
   * explicit dependencies first, then those implied by references.
   */
  readonly dependencyStart: Int32Array
  readonly dependencyTarget: Int32Array
  readonly level: Int32Array
}

/**
 * An approved plan's steps as columns, one entry per step: what the compiler built, kept as it
 * is. The hash reads the columns; the step objects of `CompiledPlan.steps` are made from them
 * the first time they are asked for, so a plan whose steps are never read as objects never
 * allocates them.
 */
export class PlanColumns implements HashSource {
  readonly #input: PlanColumnsInput
  #steps: readonly CompiledStep[] | undefined
  // The node's dependencies, read out of the edge columns for the hash: reused for every node.
  readonly #dependencies: string[] = []

  constructor(input: PlanColumnsInput) {
    this.#input = input
  }

  /** Number of steps. */
  get size(): number {
    return this.#input.ids.length
  }

  /** Writes `node`'s step as hashed into `step`, its dependencies into `into` (see {@link HashSource}). */
  fill(node: number, step: HashedStep, into: string[]): void {
    const { ids, rowOf, tools, args, dependencyStart, dependencyTarget } = this.#input
    const from = dependencyStart[node] as number
    const count = (dependencyStart[node + 1] as number) - from
    step.args = args[node] as CompiledStep['args']
    if (count === 0) step.dependsOn = NO_DEPENDENCIES
    else {
      // Not emptied between steps: an emptied array gives its room back (see NO_DEPENDENCIES).
      const dependencies = this.#dependencies
      for (let edge = 0; edge < count; edge += 1)
        dependencies[edge] = ids[dependencyTarget[from + edge] as number] as string
      dependencies.length = count
      step.dependsOn = hashedDependenciesInto(dependencies, into)
    }
    step.id = ids[node] as string
    step.tool = tools[rowOf[node] as number] as string
  }

  /** The frozen step objects, made at the first call and the same at every later one. */
  steps(): readonly CompiledStep[] {
    this.#steps ??= Object.freeze(this.#build())
    return this.#steps
  }

  #build(): CompiledStep[] {
    const { ids, rowOf, tools, args, references, level } = this.#input
    const size = ids.length
    const steps: CompiledStep[] = new Array(size)
    // Nodes that depend on one node alone share the first such node's frozen list.
    const only: (readonly string[] | undefined)[] = new Array(size)
    for (let node = 0; node < size; node += 1) {
      const index = rowOf[node] as number
      steps[node] = Object.freeze({
        id: ids[node] as string,
        index,
        tool: tools[index] as string,
        args: args[node] as CompiledStep['args'],
        dependsOn: this.#dependsOn(node, only),
        references: references[node] as readonly StepReference[],
        level: level[node] as number,
      })
    }
    return steps
  }

  /** `node`'s dependency ids, frozen: explicit ones, then those implied by references. */
  #dependsOn(node: number, only: (readonly string[] | undefined)[]): readonly string[] {
    const { ids, dependencyStart, dependencyTarget } = this.#input
    const from = dependencyStart[node] as number
    const end = dependencyStart[node + 1] as number
    if (end === from) return NO_IDS
    if (end - from === 1) {
      const target = dependencyTarget[from] as number
      const shared = only[target]
      if (shared !== undefined) return shared
      const single = Object.freeze([ids[target] as string])
      only[target] = single
      return single
    }
    const list: string[] = new Array(end - from)
    for (let edge = from; edge < end; edge += 1)
      list[edge - from] = ids[dependencyTarget[edge] as number] as string
    return Object.freeze(list)
  }
}
