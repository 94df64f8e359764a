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
  /**
   * What the digest is made from until it is known: the plan's steps, or once detached (see
   * {@link detach}) their whole text; nothing (`''`) after.
   */
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
   * Lets go of the source, so that holding the hasher holds no plan: the text a later
   * {@link digest} hashes is made now and kept when it is at most `maxLength` characters, else
   * hashed now. False, keeping the source, for a plan of more than one chunk of steps. The
   * digest is the same either way.
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
