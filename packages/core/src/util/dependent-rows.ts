import type { CompiledStep } from '../types/compiled-plan.js'
import { int32At } from './item-at.js'

/**
 * The dependents of each step of a plan, by position, as compressed rows: those of the step at
 * position p are `targets[starts[p] .. starts[p + 1])`, in plan order. Two typed arrays in
 * place of an array of ids per step.
 */
export interface DependentRows {
  readonly starts: Int32Array
  readonly targets: Int32Array
}

/** Builds the rows of `steps` (by position), in O(steps + edges); `position` finds an id. */
export function dependentRows(
  steps: readonly CompiledStep[],
  position: (stepId: string) => number | undefined,
): DependentRows {
  const starts = new Int32Array(steps.length + 1)
  for (const step of steps)
    for (const dependency of step.dependsOn) {
      const at = position(dependency)
      if (at !== undefined) starts[at + 1] = int32At(starts, at + 1) + 1
    }
  for (let index = 0; index < steps.length; index += 1)
    starts[index + 1] = int32At(starts, index + 1) + int32At(starts, index)
  const targets = new Int32Array(int32At(starts, steps.length))
  const filled = starts.slice(0, steps.length)
  steps.forEach((step, index) => {
    for (const dependency of step.dependsOn) {
      const at = position(dependency)
      if (at === undefined) continue
      targets[int32At(filled, at)] = index
      filled[at] = int32At(filled, at) + 1
    }
  })
  return { starts, targets }
}

/** Positions of the steps that depend on the step at `position`. */
export function dependentsAt(rows: DependentRows, position: number): Int32Array {
  return rows.targets.subarray(rows.starts[position], rows.starts[position + 1])
}
