// Probes allowed before the index gives up on its own table and uses a Map: a plan crafted so
// that many ids collide costs a bounded amount per id, never a quadratic one.
const MAX_PROBES = 32

/** Up to this many ids, an index is a plain list searched in order: cheaper than a table to build. */
export const LINEAR_IDS = 8

/**
 * Seeded FNV-1a over the first `length` UTF-16 code units of `id`, with a final mix so that
 * close ids spread apart.
 */
function hashOf(id: string, seed: number, length = id.length): number {
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
 * in typed arrays, so that a large plan's lookups touch one small slot each instead of a Map's
 * buckets and entries. Falls back to a Map if ids collide too often. An index sized for at most
 * {@link LINEAR_IDS} ids (a turn's few calls) is a list searched in order until it outgrows
 * that, then a Map: the same answers.
 */
export class StepIndex {
  // Two entries per slot: the id's hash, and its position + 1 (0 for an empty slot); none for a list.
  readonly #slots: Int32Array | undefined
  readonly #mask: number
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
      this.#seed = 0
      return
    }
    let size = 4
    while (size < capacity * 2) size *= 2
    this.#slots = new Int32Array(size * 2)
    this.#mask = size - 1
    this.#seed = (Math.random() * 0x100000000) | 0
  }

  /** Number of ids. */
  get size(): number {
    return this.#count
  }

  /** The step index of `id`, or undefined. */
  get(id: string): number | undefined {
    const position = this.position(id)
    return position < 0 ? undefined : this.#indices[position]
  }

  /** The position of `id` in the order the ids were added, or -1. */
  position(id: string): number {
    if (this.#fallback !== undefined) return this.#fallback.get(id) ?? -1
    const slots = this.#slots
    if (slots === undefined) return this.#find(id)
    const hash = hashOf(id, this.#seed)
    let slot = hash & this.#mask
    for (let probe = 0; probe < MAX_PROBES; probe += 1) {
      const entry = slots[slot * 2 + 1] as number
      if (entry === 0) return -1
      if (slots[slot * 2] === hash && this.#ids[entry - 1] === id) return entry - 1
      slot = (slot + 1) & this.#mask
    }
    return this.#useMap().get(id) ?? -1
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
    let slot = hash & this.#mask
    for (let probe = 0; probe < MAX_PROBES; probe += 1) {
      const entry = slots[slot * 2 + 1] as number
      if (entry === 0) return undefined
      if (slots[slot * 2] === hash) {
        const id = this.#ids[entry - 1] as string
        if (id.length === length && text.startsWith(id)) return this.#indices[entry - 1]
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
    let slot = hash & this.#mask
    for (let probe = 0; probe < MAX_PROBES; probe += 1) {
      const entry = slots[slot * 2 + 1] as number
      if (entry === 0) {
        slots[slot * 2] = hash
        slots[slot * 2 + 1] = this.#append(id, index) + 1
        return undefined
      }
      if (slots[slot * 2] === hash && this.#ids[entry - 1] === id) return this.#indices[entry - 1]
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
    if (position >= 0) return this.#indices[position]
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
    if (first !== undefined) return this.#indices[first]
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
        map.set(this.#ids[position] as string, position)
      this.#fallback = map
    }
    return this.#fallback
  }
}
