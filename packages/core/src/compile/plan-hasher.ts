import { canonicalJson, createSha256, prototypesHaveToJson, sha256Hex } from '@plan/json'
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
   * Writes step `node` into the reused `step`: args, id, tool, and dependencies as hashed, in
   * `step.dependsOn` if it has their count and is not {@link NO_DEPENDENCIES}, else a new one.
   */
  fill(node: number, step: HashedStep): void
}

const NO_ARGS: CompiledStep['args'] = Object.freeze({})

/**
 * A chunk of step literals, refilled per chunk (no object per step to collect). Each is checked
 * own (else this throws), so a built-in prototype's index accessor cannot stand in for one.
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
 * SHA-256 of a compiled plan's canonical JSON `{"steps":[…],"version":1}`, computed a chunk at a
 * time at the first {@link PlanHasher.digest} (a plan whose hash is never read is never hashed).
 * Sorted keys make each step literal canonical as it stands (arguments are copied in sorted key
 * order when checked); dependencies are hashed sorted, without duplicates.
 */
export class PlanHasher {
  /** The digest's input until known: the steps, their text once {@link detach}ed, then `''`. */
  #from: HashSource | string
  #digest: string | undefined

  constructor(source: HashSource) {
    this.#from = source
  }

  /** The hex digest, computed at the first call. */
  digest(): string {
    if (this.#digest === undefined) {
      const from = this.#from
      this.#digest = typeof from === 'string' ? sha256Hex(from) : this.#compute(from)
      this.#from = ''
    }
    return this.#digest
  }

  /** The hex digest ({@link digest}): a hasher stands for its plan's hash where one is kept. */
  get hash(): string {
    return this.digest()
  }

  /** Characters of the text kept for a later digest: 0 when none is (see {@link detach}). */
  get keptLength(): number {
    return typeof this.#from === 'string' ? this.#from.length : 0
  }

  /**
   * Lets go of the source, so holding the hasher holds no plan: the text {@link digest} hashes is
   * made now and kept if at most `maxLength` characters, else hashed now (same digest either way).
   * False, keeping the source, for a plan of more than one chunk of steps.
   */
  detach(maxLength: number): boolean {
    const source = this.#from
    if (typeof source === 'string') return true
    if (source.size > CHUNK) return false
    const text = `{"steps":[${this.#stepsText(source, 0, pendingSteps(source.size))}],"version":1}`
    if (text.length > maxLength) {
      this.#digest = sha256Hex(text)
      this.#from = ''
    } else this.#from = text
    return true
  }

  /** Steps `start` on (at most {@link CHUNK}, as many as `pending` holds) as hashed, without brackets. */
  #stepsText(source: HashSource, start: number, pending: HashedStep[]): string {
    for (let offset = 0; offset < pending.length; offset += 1)
      source.fill(start + offset, itemAt(pending, offset))
    // A `toJSON` on a built-in prototype would let JSON.stringify write what it returns.
    const text = prototypesHaveToJson() ? canonicalJson(pending) : JSON.stringify(pending)
    return text.slice(1, -1)
  }

  #compute(source: HashSource): string {
    const size = source.size
    const hash = createSha256().update('{"steps":[')
    const pending = pendingSteps(Math.min(CHUNK, size))
    for (let start = 0; start < size; start += CHUNK) {
      const count = Math.min(CHUNK, size - start)
      if (pending.length > count) pending.length = count
      if (start > 0) hash.update(',')
      hash.update(this.#stepsText(source, start, pending))
    }
    return hash.update('],"version":1}').digestHex()
  }
}
