import type { CompiledStep } from '../types/compiled-plan.js'
import { canonicalJson, prototypesHaveToJson } from '../util/canonical-json.js'
import { createSha256 } from '../util/portable-crypto.js'

/** One step as it enters the plan hash; keys in sorted order. */
export interface HashedStep {
  args: CompiledStep['args']
  dependsOn: string[]
  id: string
  tool: string
}

/**
 * Writes `ids` into `into` (over what it held) sorted by code unit, as `Array.prototype.sort`
 * compares strings, without duplicates: a step's dependencies as hashed, so writing an implied
 * dependency out does not change the hash. `into` is a plain array of the hasher's own: a frozen
 * one would take JSON.stringify's slow path.
 */
export function hashedDependenciesInto(ids: readonly string[], into: string[]): string[] {
  if (ids.length > 8) return replaceWith(into, [...new Set(ids)].sort())
  let kept = 0
  for (let index = 0; index < ids.length; index += 1) {
    const id = ids[index] as string
    let slot = kept
    while (slot > 0 && (into[slot - 1] as string) > id) slot -= 1
    if (slot > 0 && into[slot - 1] === id) continue
    for (let move = kept; move > slot; move -= 1) into[move] = into[move - 1] as string
    into[slot] = id
    kept += 1
  }
  if (into.length > kept) into.length = kept
  return into
}

function replaceWith(into: string[], ids: readonly string[]): string[] {
  for (let index = 0; index < ids.length; index += 1) into[index] = ids[index] as string
  if (into.length > ids.length) into.length = ids.length
  return into
}

// Steps stringified at a time: the hash never needs the whole plan's text in memory at once, and
// a text of this size (tens of kB) is cheaper to build than a larger one.
const CHUNK = 512

/** The step literals of `steps[start]` up to `end` (excluded) in `pending`, refilled in place. */
function fillPending(
  steps: readonly CompiledStep[],
  start: number,
  end: number,
  pending: HashedStep[],
): HashedStep[] {
  for (let index = start; index < end; index += 1) {
    const { args, dependsOn, id, tool } = steps[index] as CompiledStep
    const step = pending[index - start]
    if (step === undefined)
      pending.push({ args, dependsOn: hashedDependenciesInto(dependsOn, []), id, tool })
    else {
      step.args = args
      hashedDependenciesInto(dependsOn, step.dependsOn)
      step.id = id
      step.tool = tool
    }
  }
  if (pending.length > end - start) pending.length = end - start
  return pending
}

/**
 * SHA-256 of `{"steps":[…],"version":1}`, the canonical JSON of a compiled plan, computed at the
 * first {@link PlanHasher.digest} from the plan's own (frozen) steps, a chunk of steps at a
 * time: a plan whose hash is never read is never hashed. Keys in sorted order make each step's
 * literal canonical as it stands (arguments are copied in sorted key order when they are
 * checked); dependencies are hashed sorted, without duplicates.
 */
export class PlanHasher {
  readonly #steps: readonly CompiledStep[]
  #digest: string | undefined

  constructor(steps: readonly CompiledStep[]) {
    this.#steps = steps
  }

  /** The hex digest, computed at the first call. */
  digest(): string {
    this.#digest ??= this.#compute()
    return this.#digest
  }

  #compute(): string {
    const steps = this.#steps
    const hash = createSha256().update('{"steps":[')
    // One chunk of step literals, refilled for every chunk: no object per step to collect.
    const pending: HashedStep[] = []
    for (let start = 0; start < steps.length; start += CHUNK) {
      fillPending(steps, start, Math.min(start + CHUNK, steps.length), pending)
      // A `toJSON` on a built-in prototype would let JSON.stringify write what it returns.
      const text = prototypesHaveToJson() ? canonicalJson(pending) : JSON.stringify(pending)
      if (start > 0) hash.update(',')
      hash.update(text.slice(1, -1))
    }
    return hash.update('],"version":1}').digestHex()
  }
}
