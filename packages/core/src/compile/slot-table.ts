import { int32At } from '@plan/shell/common'

// Probes allowed before an index gives up on its own table and uses a Map: a plan crafted so
// that many ids collide costs a bounded amount per id, never a quadratic one.
export const MAX_PROBES = 32

/** What {@link SlotTable.probe} returns when `MAX_PROBES` slots are taken by other ids. */
export const RAN_OUT = -0x80000000

/**
 * An open-addressing table of 32-bit slots over an array of ids kept by its owner: each slot
 * holds an id's position + 1 in its low bits (0 when empty) and the high bits of the id's hash
 * above them, so that most other ids are told apart without reading them.
 */
export class SlotTable {
  readonly slots: Int32Array
  readonly mask: number
  // The bits of a slot that hold the position + 1; the others hold the hash.
  readonly entryMask: number
  readonly seed = (Math.random() * 0x100000000) | 0

  /** A table with room for `capacity` ids, at most half full. */
  constructor(capacity: number) {
    let size = 4
    while (size < capacity * 2) size *= 2
    this.slots = new Int32Array(size)
    this.mask = size - 1
    // A table of `size` slots holds at most `size` ids: positions + 1 up to `size` fit in 2 * size - 1.
    this.entryMask = size * 2 - 1
  }

  /** Seeded FNV-1a of `id`'s first `length` UTF-16 units, mixed last so close ids spread apart. */
  hash(id: string, length = id.length): number {
    let hash = this.seed
    for (let index = 0; index < length; index += 1)
      hash = Math.imul(hash ^ id.charCodeAt(index), 0x01000193)
    hash ^= hash >>> 16
    hash = Math.imul(hash, 0x85ebca6b)
    hash ^= hash >>> 13
    hash = Math.imul(hash, 0xc2b2ae35)
    return hash ^ (hash >>> 16)
  }

  /**
   * Position of `id` (hashed `hash`) in `ids`; if absent, `~slot` of the empty slot it would take,
   * or {@link RAN_OUT}, a miss too (each id in the table is within {@link MAX_PROBES} of its slot).
   */
  probe(ids: readonly string[], id: string, hash: number): number {
    const slots = this.slots
    const entryMask = this.entryMask
    let slot = hash & this.mask
    for (let probe = 0; probe < MAX_PROBES; probe += 1) {
      const value = int32At(slots, slot)
      const entry = value & entryMask
      if (entry === 0) return ~slot
      if (((value ^ hash) & ~entryMask) === 0 && ids[entry - 1] === id) return entry - 1
      slot = (slot + 1) & this.mask
    }
    return RAN_OUT
  }

  /** Puts `position` with `hash` in the empty `slot` that {@link probe} returned as `~slot`. */
  put(slot: number, hash: number, position: number): void {
    this.slots[slot] = (hash & ~this.entryMask) | (position + 1)
  }
}
