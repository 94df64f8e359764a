import type { CompiledStep } from '../../types/compiled-plan.js'
import { type HashSource, NO_DEPENDENCIES } from '../plan-hasher.js'

/**
 * `ids` sorted by code unit, as `Array.prototype.sort` compares strings, without duplicates: a
 * step's dependencies as hashed, so writing an implied dependency out does not change the hash.
 */
function hashedDependencies(ids: readonly string[]): string[] {
  return [...new Set(ids)].sort()
}

/** A {@link HashSource} over compiled step objects. */
export function hashSourceOf(steps: readonly CompiledStep[]): HashSource {
  return {
    size: steps.length,
    fill(node, step) {
      const { args, dependsOn, id, tool } = steps[node] as CompiledStep
      step.args = args
      step.dependsOn = dependsOn.length === 0 ? NO_DEPENDENCIES : hashedDependencies(dependsOn)
      step.id = id
      step.tool = tool
    },
  }
}
