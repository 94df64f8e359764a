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

/** What the hash reads of a plan: its number of steps, and each step as hashed. */
export interface HashSource {
  readonly size: number
  /**
   * Writes step `node` into `step`: its args, id, tool, and its dependencies as hashed, written
   * into `dependencies` (an array of the hasher's own, reused) or {@link NO_DEPENDENCIES}.
   */
  fill(node: number, step: HashedStep, dependencies: string[]): void
}

/**
 * The dependencies of a step that has none, as hashed. Never written to: emptying a reused array
 * would give its room back, and the next step's dependencies would allocate it again.
 */
export const NO_DEPENDENCIES: string[] = []

/** `ids` as hashed into `into` ({@link hashedDependenciesInto}), or {@link NO_DEPENDENCIES}. */
export function hashedDependencies(ids: readonly string[], into: string[]): string[] {
  return ids.length === 0 ? NO_DEPENDENCIES : hashedDependenciesInto(ids, into)
}

/**
 * The step literals of `source`'s steps `start` up to `end` (excluded) in `pending`, refilled in
 * place; `dependencies[i]` is the array `pending[i]`'s dependencies are written into.
 */
function fillPending(
  source: HashSource,
  start: number,
  end: number,
  pending: HashedStep[],
  dependencies: string[][],
): void {
  for (let node = start; node < end; node += 1) {
    let step = pending[node - start]
    if (step === undefined) {
      step = { args: NO_ARGS, dependsOn: NO_DEPENDENCIES, id: '', tool: '' }
      pending.push(step)
      dependencies.push([])
    }
    source.fill(node, step, dependencies[node - start] as string[])
  }
  if (pending.length > end - start) pending.length = end - start
}

const NO_ARGS: CompiledStep['args'] = Object.freeze({})

/** A {@link HashSource} over compiled step objects. */
export function hashSourceOf(steps: readonly CompiledStep[]): HashSource {
  return {
    size: steps.length,
    fill(node, step, dependencies) {
      const { args, dependsOn, id, tool } = steps[node] as CompiledStep
      step.args = args
      step.dependsOn = hashedDependencies(dependsOn, dependencies)
      step.id = id
      step.tool = tool
    },
  }
}

/**
 * SHA-256 of `{"steps":[…],"version":1}`, the canonical JSON of a compiled plan, computed at the
 * first {@link PlanHasher.digest} from the plan's steps as its source gives them, a chunk at a
 * time: a plan whose hash is never read is never hashed. Keys in sorted order make each step's
 * literal canonical as it stands (arguments are copied in sorted key order when they are
 * checked); dependencies are hashed sorted, without duplicates.
 */
export class PlanHasher {
  readonly #source: HashSource
  #digest: string | undefined

  constructor(source: HashSource) {
    this.#source = source
  }

  /** The hex digest, computed at the first call. */
  digest(): string {
    this.#digest ??= this.#compute()
    return this.#digest
  }

  #compute(): string {
    const source = this.#source
    const size = source.size
    const hash = createSha256().update('{"steps":[')
    // One chunk of step literals, refilled for every chunk: no object per step to collect.
    const pending: HashedStep[] = []
    const dependencies: string[][] = []
    for (let start = 0; start < size; start += CHUNK) {
      fillPending(source, start, Math.min(start + CHUNK, size), pending, dependencies)
      // A `toJSON` on a built-in prototype would let JSON.stringify write what it returns.
      const text = prototypesHaveToJson() ? canonicalJson(pending) : JSON.stringify(pending)
      if (start > 0) hash.update(',')
      hash.update(text.slice(1, -1))
    }
    return hash.update('],"version":1}').digestHex()
  }
}
