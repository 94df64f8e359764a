import type { CompiledStep } from '../types/compiled-plan.js'
import { canonicalJson, prototypesHaveToJson } from '../util/canonical-json.js'
import { createSha256, type IncrementalSha256 } from '../util/portable-crypto.js'

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

/**
 * SHA-256 of `{"steps":[…],"version":1}`, the canonical JSON of a compiled plan, fed to the
 * hash a chunk of steps at a time. Keys in sorted order make each step's literal canonical as
 * it stands (arguments are copied in sorted key order when they are checked).
 */
export class PlanHasher {
  // Started at the first flush: a plan whose hash is never read never starts one.
  #hash: IncrementalSha256 | undefined
  // One chunk of step literals, refilled for every chunk: no object per step to collect.
  readonly #pending: HashedStep[] = []
  #count = 0
  #empty = true
  #digest: string | undefined

  /** Adds the next step; its dependencies are hashed sorted, without duplicates. */
  add(args: CompiledStep['args'], dependsOn: readonly string[], id: string, tool: string): void {
    const count = this.#count
    const step = this.#pending[count]
    if (step === undefined)
      this.#pending.push({ args, dependsOn: hashedDependenciesInto(dependsOn, []), id, tool })
    else {
      step.args = args
      hashedDependenciesInto(dependsOn, step.dependsOn)
      step.id = id
      step.tool = tool
    }
    this.#count = count + 1
    if (count + 1 === CHUNK) this.#flush()
  }

  /** The hex digest, computed at the first call; no step can be added afterwards. */
  digest(): string {
    if (this.#digest !== undefined) return this.#digest
    this.#flush()
    this.#digest = this.#sha().update('],"version":1}').digestHex()
    this.#pending.length = 0
    return this.#digest
  }

  #flush(): void {
    if (this.#count === 0) return
    const pending =
      this.#count === this.#pending.length ? this.#pending : this.#pending.slice(0, this.#count)
    // A `toJSON` on a built-in prototype would let JSON.stringify write what it returns.
    const text = prototypesHaveToJson() ? canonicalJson(pending) : JSON.stringify(pending)
    const hash = this.#sha()
    if (!this.#empty) hash.update(',')
    hash.update(text.slice(1, -1))
    this.#empty = false
    this.#count = 0
  }

  #sha(): IncrementalSha256 {
    this.#hash ??= createSha256().update('{"steps":[')
    return this.#hash
  }
}
