import { int32At, numberAt, stringAt } from '@plan/shell/common'
import { MAX_PROBES, RAN_OUT, SlotTable } from './slot-table.js'

/** Up to this many ids, an index is a plain list searched in order: cheaper than a table to build. */
export const LINEAR_IDS = 8

/**
 * One plan's step ids to the index of the first step with each: an open-addressing table in a
 * typed array, so a large plan's lookup touches one small slot, not a Map's buckets and entries;
 * a Map if ids collide too often. Sized for at most {@link LINEAR_IDS} ids (a turn's few calls),
 * it is a list searched in order until it outgrows that, then a Map: the same answers.
 */
export class StepIndex {
  // Undefined while the index is a list.
  readonly #table: SlotTable | undefined
  // Every id and its step index, by position (the order they were added); sized up front.
  readonly #ids: string[]
  readonly #indices: number[]
  #count = 0
  #fallback: Map<string, number> | undefined

  /** An index for up to `capacity` ids; a list while `capacity <= linearUpTo`. */
  constructor(capacity: number, linearUpTo = LINEAR_IDS) {
    this.#ids = new Array(capacity)
    this.#indices = new Array(capacity)
    this.#table = capacity <= linearUpTo ? undefined : new SlotTable(capacity)
  }

  get size(): number {
    return this.#count
  }

  get(id: string): number | undefined {
    const position = this.position(id)
    return position < 0 ? undefined : numberAt(this.#indices, position)
  }

  /** The position of `id` in the order the ids were added, or -1. */
  position(id: string): number {
    if (this.#fallback !== undefined) return this.#fallback.get(id) ?? -1
    const table = this.#table
    if (table === undefined) return this.#find(id)
    const found = table.probe(this.#ids, id, table.hash(id))
    return found >= 0 ? found : found === RAN_OUT ? (this.#useMap().get(id) ?? -1) : -1
  }

  /**
   * {@link position} of each of `keys[0 .. count)` into `out`: all hashes, then all probes, so the
   * memory many lookups touch is fetched side by side, not one lookup after another.
   */
  positions(keys: readonly string[], count: number, out: Int32Array): void {
    const table = this.#table
    if (table === undefined || this.#fallback !== undefined) {
      for (let index = 0; index < count; index += 1)
        out[index] = this.position(stringAt(keys, index))
      return
    }
    for (let index = 0; index < count; index += 1) out[index] = table.hash(stringAt(keys, index))
    // No id ran out of probes when added (else the Map above): a lookup that runs out is a miss.
    for (let index = 0; index < count; index += 1) {
      const found = table.probe(this.#ids, stringAt(keys, index), int32At(out, index))
      out[index] = found < 0 ? -1 : found
    }
  }

  /** {@link get} of `text.slice(0, length)`, unsliced: a `$ref`'s id is looked up in place. */
  getPrefix(text: string, length: number): number | undefined {
    const table = this.#table
    if (length === text.length || table === undefined || this.#fallback !== undefined)
      return this.get(length === text.length ? text : text.slice(0, length))
    const hash = table.hash(text, length)
    const { slots, mask, entryMask } = table
    let slot = hash & mask
    for (let probe = 0; probe < MAX_PROBES; probe += 1) {
      const value = int32At(slots, slot)
      const entry = value & entryMask
      if (entry === 0) return undefined
      if (((value ^ hash) & ~entryMask) === 0) {
        const id = stringAt(this.#ids, entry - 1)
        if (id.length === length && text.startsWith(id)) return numberAt(this.#indices, entry - 1)
      }
      slot = (slot + 1) & mask
    }
    return this.get(text.slice(0, length))
  }

  /** Adds `id` at step `index` if new (returning undefined), else returns its step index as is. */
  addIfAbsent(id: string, index: number): number | undefined {
    if (this.#fallback !== undefined) return this.#addToMap(id, index)
    const table = this.#table
    if (table === undefined) return this.#addToList(id, index)
    const hash = table.hash(id)
    const found = table.probe(this.#ids, id, hash)
    if (found >= 0) return numberAt(this.#indices, found)
    if (found === RAN_OUT) {
      this.#useMap()
      return this.#addToMap(id, index)
    }
    table.put(~found, hash, this.#append(id, index))
    return undefined
  }

  /** The position of `id` in the list, or -1. */
  #find(id: string): number {
    for (let position = 0; position < this.#count; position += 1)
      if (this.#ids[position] === id) return position
    return -1
  }

  /** {@link addIfAbsent} on the list; past {@link LINEAR_IDS} ids, the index becomes a Map. */
  #addToList(id: string, index: number): number | undefined {
    const position = this.#find(id)
    if (position >= 0) return numberAt(this.#indices, position)
    if (this.#count >= LINEAR_IDS) {
      this.#useMap()
      return this.#addToMap(id, index)
    }
    this.#append(id, index)
    return undefined
  }

  #addToMap(id: string, index: number): number | undefined {
    const map = this.#fallback ?? this.#useMap()
    const first = map.get(id)
    if (first !== undefined) return numberAt(this.#indices, first)
    map.set(id, this.#append(id, index))
    return undefined
  }

  /** Records `id` at the next position and returns that position. */
  #append(id: string, index: number): number {
    const position = this.#count
    this.#ids[position] = id
    this.#indices[position] = index
    this.#count = position + 1
    return position
  }

  /** The ids, in the order they were added. */
  keys(): IterableIterator<string> {
    return this.#ids.slice(0, this.#count).values()
  }

  #useMap(): Map<string, number> {
    if (this.#fallback === undefined) {
      const map = new Map<string, number>()
      for (let position = 0; position < this.#count; position += 1)
        map.set(stringAt(this.#ids, position), position)
      this.#fallback = map
    }
    return this.#fallback
  }
}
