import { int32At, stringAt } from '../util/item-at.js'
import { MapView } from '../util/map-view.js'
import { hashOf, MAX_PROBES } from './step-index.js'

/**
 * The position of each of a plan's (distinct) step ids: an open-addressing table of 32-bit
 * slots over the plan's own array of ids, a few bytes per step where a Map takes some forty.
 * Like the compiler's `StepIndex`, it falls back to a Map when ids collide too often (a plan
 * crafted for it costs a bounded amount per id). Iterates in position order, as a Map filled
 * in plan order does.
 */
export class IdPositions extends MapView<number> {
  readonly #ids: readonly string[]
  // One entry per slot: the position + 1 in the low bits (0 for an empty slot), the high bits
  // of the id's hash above them, so most other ids are told apart without reading them.
  readonly #slots: Int32Array
  readonly #mask: number
  readonly #entryMask: number
  readonly #seed = (Math.random() * 0x100000000) | 0
  readonly #fallback: Map<string, number> | undefined

  /** @param ids distinct step ids, by position (kept, not copied: the plan's frozen array) */
  constructor(ids: readonly string[]) {
    super()
    this.#ids = ids
    let size = 4
    while (size < ids.length * 2) size *= 2
    this.#slots = new Int32Array(size)
    this.#mask = size - 1
    // A table of `size` slots holds at most `size` ids: positions + 1 up to `size` fit in 2 * size - 1.
    this.#entryMask = size * 2 - 1
    this.#fallback = this.#fill() ? undefined : new Map(ids.map((id, position) => [id, position]))
  }

  /** Puts every id in the table; false when one needs more than {@link MAX_PROBES} probes. */
  #fill(): boolean {
    const ids = this.#ids
    const slots = this.#slots
    for (let position = 0; position < ids.length; position += 1) {
      const hash = hashOf(stringAt(ids, position), this.#seed)
      let slot = hash & this.#mask
      let probes = 0
      while ((int32At(slots, slot) & this.#entryMask) !== 0) {
        probes += 1
        if (probes >= MAX_PROBES) return false
        slot = (slot + 1) & this.#mask
      }
      slots[slot] = (hash & ~this.#entryMask) | (position + 1)
    }
    return true
  }

  get size(): number {
    return this.#ids.length
  }

  get(id: string): number | undefined {
    if (this.#fallback !== undefined) return this.#fallback.get(id)
    if (typeof id !== 'string') return undefined
    const hash = hashOf(id, this.#seed)
    const slots = this.#slots
    const entryMask = this.#entryMask
    let slot = hash & this.#mask
    // Every id went in within MAX_PROBES slots of its own: a lookup that runs out is a miss.
    for (let probe = 0; probe < MAX_PROBES; probe += 1) {
      const value = int32At(slots, slot)
      const entry = value & entryMask
      if (entry === 0) return undefined
      if (((value ^ hash) & ~entryMask) === 0 && this.#ids[entry - 1] === id) return entry - 1
      slot = (slot + 1) & this.#mask
    }
    return undefined
  }

  has(id: string): boolean {
    return this.get(id) !== undefined
  }

  *entries(): MapIterator<[string, number]> {
    const ids = this.#ids
    for (let position = 0; position < ids.length; position += 1)
      yield [stringAt(ids, position), position]
  }

  override *keys(): MapIterator<string> {
    yield* this.#ids
  }

  override *values(): MapIterator<number> {
    for (let position = 0; position < this.#ids.length; position += 1) yield position
  }
}
