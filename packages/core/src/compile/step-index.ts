import { int32At, numberAt, stringAt } from '../util/item-at.js'

// Probes allowed before the index gives up on its own table and uses a Map: a plan crafted so
// that many ids collide costs a bounded amount per id, never a quadratic one.
export const MAX_PROBES = 32

/** Up to this many ids, an index is a plain list searched in order: cheaper than a table to build. */
export const LINEAR_IDS = 8

/**
 * Seeded FNV-1a over the first `length` UTF-16 code units of `id`, with a final mix so that
 * close ids spread apart.
 */
export function hashOf(id: string, seed: number, length = id.length): number {
  let hash = seed
  for (let index = 0; index < length; index += 1)
    hash = Math.imul(hash ^ id.charCodeAt(index), 0x01000193)
  hash ^= hash >>> 16
  hash = Math.imul(hash, 0x85ebca6b)
  hash ^= hash >>> 13
  hash = Math.imul(hash, 0xc2b2ae35)
  return hash ^ (hash >>> 16)
}

/**
 * Step ids to the index of the first step that has each, for one plan: an open-addressing table
 * in a typed array, so that a large plan's lookups touch one small slot each instead of a Map's
 * buckets and entries. Falls back to a Map if ids collide too often. An index sized for at most
 * {@link LINEAR_IDS} ids (a turn's few calls) is a list searched in order until it outgrows
 * that, then a Map: the same answers.
 */
export class StepIndex {
  // One entry per slot: the id's position + 1 in the low bits (0 for an empty slot), the high
  // bits of its hash above them, so that most other ids are told apart without reading them.
  readonly #slots: Int32Array | undefined
  readonly #mask: number
  // The bits of a slot that hold the position + 1; the others hold the hash.
  readonly #entryMask: number
  readonly #seed: number
  // Every id and its step index, by position (the order they were added); sized up front.
  readonly #ids: string[]
  readonly #indices: number[]
  #count = 0
  #fallback: Map<string, number> | undefined

  /** An index for up to `capacity` ids; a list while `capacity <= linearUpTo`. */
  constructor(capacity: number, linearUpTo = LINEAR_IDS) {
    this.#ids = new Array(capacity)
    this.#indices = new Array(capacity)
    if (capacity <= linearUpTo) {
      this.#slots = undefined
      this.#mask = 0
      this.#entryMask = 0
      this.#seed = 0
      return
    }
    let size = 4
    while (size < capacity * 2) size *= 2
    this.#slots = new Int32Array(size)
    this.#mask = size - 1
    // A table of `size` slots holds at most `size` ids: positions + 1 up to `size` fit in 2 * size - 1.
    this.#entryMask = size * 2 - 1
    this.#seed = (Math.random() * 0x100000000) | 0
  }

  /** Number of ids. */
  get size(): number {
    return this.#count
  }

  /** The step index of `id`, or undefined. */
  get(id: string): number | undefined {
    const position = this.position(id)
    return position < 0 ? undefined : numberAt(this.#indices, position)
  }

  /** The position of `id` in the order the ids were added, or -1. */
  position(id: string): number {
    if (this.#fallback !== undefined) return this.#fallback.get(id) ?? -1
    const slots = this.#slots
    if (slots === undefined) return this.#find(id)
    const found = this.#probe(slots, id, hashOf(id, this.#seed))
    return found === -2 ? (this.#useMap().get(id) ?? -1) : found
  }

  /**
   * {@link position} of each of `keys[0 .. count)`, into `out`: all hashes first, then all
   * probes, so the memory that many lookups touch is fetched side by side instead of one
   * lookup after another.
   */
  positions(keys: readonly string[], count: number, out: Int32Array): void {
    const slots = this.#slots
    if (slots === undefined || this.#fallback !== undefined) {
      for (let index = 0; index < count; index += 1)
        out[index] = this.position(stringAt(keys, index))
      return
    }
    const seed = this.#seed
    for (let index = 0; index < count; index += 1) out[index] = hashOf(stringAt(keys, index), seed)
    // An id in the table sits within MAX_PROBES slots of its own (else it went to the Map):
    // a lookup that runs out of probes is a miss.
    for (let index = 0; index < count; index += 1) {
      const found = this.#probe(slots, stringAt(keys, index), int32At(out, index))
      out[index] = found < 0 ? -1 : found
    }
  }

  /** The position of `id`, whose hash is `hash`, in the table: -1 when absent, -2 after too many probes. */
  #probe(slots: Int32Array, id: string, hash: number): number {
    const entryMask = this.#entryMask
    let slot = hash & this.#mask
    for (let probe = 0; probe < MAX_PROBES; probe += 1) {
      const value = int32At(slots, slot)
      const entry = value & entryMask
      if (entry === 0) return -1
      if (((value ^ hash) & ~entryMask) === 0 && this.#ids[entry - 1] === id) return entry - 1
      slot = (slot + 1) & this.#mask
    }
    return -2
  }

  /**
   * {@link get} of `text.slice(0, length)`, without cutting that id out of `text`: a `$ref`
   * target `<id>.output.<field>` is looked up in place.
   */
  getPrefix(text: string, length: number): number | undefined {
    const slots = this.#slots
    if (length === text.length || slots === undefined || this.#fallback !== undefined)
      return this.get(length === text.length ? text : text.slice(0, length))
    const hash = hashOf(text, this.#seed, length)
    const entryMask = this.#entryMask
    let slot = hash & this.#mask
    for (let probe = 0; probe < MAX_PROBES; probe += 1) {
      const value = int32At(slots, slot)
      const entry = value & entryMask
      if (entry === 0) return undefined
      if (((value ^ hash) & ~entryMask) === 0) {
        const id = stringAt(this.#ids, entry - 1)
        if (id.length === length && text.startsWith(id)) return numberAt(this.#indices, entry - 1)
      }
      slot = (slot + 1) & this.#mask
    }
    return this.get(text.slice(0, length))
  }

  /**
   * Adds `id` at step `index` when it is new and returns undefined; returns the step index it
   * already has otherwise (and leaves it).
   */
  addIfAbsent(id: string, index: number): number | undefined {
    if (this.#fallback !== undefined) return this.#addToMap(id, index)
    const slots = this.#slots
    if (slots === undefined) return this.#addToList(id, index)
    const hash = hashOf(id, this.#seed)
    const entryMask = this.#entryMask
    let slot = hash & this.#mask
    for (let probe = 0; probe < MAX_PROBES; probe += 1) {
      const value = int32At(slots, slot)
      const entry = value & entryMask
      if (entry === 0) {
        slots[slot] = (hash & ~entryMask) | (this.#append(id, index) + 1)
        return undefined
      }
      if (((value ^ hash) & ~entryMask) === 0 && this.#ids[entry - 1] === id)
        return numberAt(this.#indices, entry - 1)
      slot = (slot + 1) & this.#mask
    }
    this.#useMap()
    return this.#addToMap(id, index)
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
    const map = this.#fallback as Map<string, number>
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
