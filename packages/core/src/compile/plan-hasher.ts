import { canonicalJson, createSha256, prototypesHaveToJson } from '@plan/json'
import { itemAt } from '@plan/shell/common'
import { pollutedPrototype } from '../errors/polluted-prototype.js'
import type { CompiledStep } from '../types/compiled-plan.js'

/** One step as it enters the plan hash (its literal's keys in sorted order). */
export type HashedStep = { -readonly [K in 'args' | 'dependsOn' | 'id' | 'tool']: CompiledStep[K] }

/** The dependencies of a step that has none, as hashed. */
export const NO_DEPENDENCIES: readonly string[] = Object.freeze([])

// Steps stringified at a time: the hash never needs the whole plan's text in memory at once, and
// a text of this size (tens of kB) is cheaper to build than a larger one.
const CHUNK = 512

/** What the hash reads of a plan: its number of steps, and each step as hashed. */
export interface HashSource {
  readonly size: number
  /**
   * Writes step `node` into `step` (a literal of the hasher's own, reused): its args, id, tool,
   * and as `dependsOn` its dependencies as hashed — in `step.dependsOn` itself when that array
   * has exactly their number of elements and is not {@link NO_DEPENDENCIES}, else in a new one.
   */
  fill(node: number, step: HashedStep): void
}

const NO_ARGS: CompiledStep['args'] = Object.freeze({})

/**
 * A chunk of step literals, refilled for every chunk: no object per step to collect. Each is
 * checked to be the array's own, so an index accessor on a built-in prototype cannot stand in
 * for a step (then this throws).
 */
function pendingSteps(size: number): HashedStep[] {
  const pending: HashedStep[] = new Array(size)
  for (let index = 0; index < size; index += 1) {
    pending[index] = { args: NO_ARGS, dependsOn: NO_DEPENDENCIES, id: '', tool: '' }
    if (!Object.hasOwn(pending, index)) throw pollutedPrototype()
  }
  return pending
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
    const pending = pendingSteps(Math.min(CHUNK, size))
    for (let start = 0; start < size; start += CHUNK) {
      const count = Math.min(CHUNK, size - start)
      if (pending.length > count) pending.length = count
      for (let offset = 0; offset < count; offset += 1)
        source.fill(start + offset, itemAt(pending, offset))
      // A `toJSON` on a built-in prototype would let JSON.stringify write what it returns.
      const text = prototypesHaveToJson() ? canonicalJson(pending) : JSON.stringify(pending)
      if (start > 0) hash.update(',')
      hash.update(text.slice(1, -1))
    }
    return hash.update('],"version":1}').digestHex()
  }
}
