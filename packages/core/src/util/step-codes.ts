import { stringAt } from '@plan/shell/common'
import { MapView } from './map-view.js'

// Shared by every map before its first plan: only read, never written.
const NO_POSITIONS: ReadonlyMap<string, number> = new Map()
const NO_IDS: readonly string[] = Object.freeze([])
const NO_CODES = new Uint8Array(0)

/**
 * A {@link StepValues} for values of a short, fixed list (a status, a label): the plan's steps keep
 * a one-byte code by position, not a pointer, and any other id a small map entry. Same iteration
 * order: the other ids first, in the order they were set, then the plan's steps in plan order.
 */
export class StepCodes<V extends string> extends MapView<V> {
  /** The values; a value's code is its index + 1, and code 0 is no value. */
  private readonly list: readonly V[]
  private positions: ReadonlyMap<string, number> = NO_POSITIONS
  private ids: readonly string[] = NO_IDS
  private codes = NO_CODES
  private placed = 0
  /** Made at the first value of another id: a guard holds two, most never need it. */
  private others: Map<string, V> | undefined

  /** @param values every value a step may have (at most 255), kept as they are */
  constructor(values: readonly V[]) {
    super()
    if (values.length > 255) throw new RangeError('at most 255 values')
    this.list = values
  }

  private valueAt(code: number): V | undefined {
    return code === 0 ? undefined : this.list[code - 1]
  }

  private othersMap(): Map<string, V> {
    this.others ??= new Map()
    return this.others
  }

  get size(): number {
    return this.placed + (this.others?.size ?? 0)
  }

  /** Keeps the values by position for a plan's steps, as {@link StepValues.place} does. */
  place(ids: readonly string[], positions: ReadonlyMap<string, number>): void {
    const codes = this.codes
    for (let position = 0; position < codes.length; position += 1) {
      const value = this.valueAt(codes[position] ?? 0)
      const id = this.ids[position]
      if (value !== undefined && id !== undefined) this.othersMap().set(id, value)
    }
    this.positions = positions
    this.ids = ids
    // A plan as long as the last keeps its codes, emptied.
    if (codes.length === ids.length) codes.fill(0)
    else this.codes = new Uint8Array(ids.length)
    this.placed = 0
    const others = this.others
    if (others === undefined || others.size === 0) return
    // Indexed: `ids` is often a frozen array, which a for-of walks through the runtime.
    for (let position = 0; position < ids.length; position += 1) {
      const id = stringAt(ids, position)
      const value = others.get(id)
      if (value === undefined || !others.delete(id)) continue
      this.set(id, value)
    }
  }

  get(id: string): V | undefined {
    const position = this.positions.get(id)
    return position === undefined ? this.others?.get(id) : this.valueAt(this.codes[position] ?? 0)
  }

  /** Sets a value of the list given to the constructor; a RangeError for any other. */
  set(id: string, value: V): this {
    const code = this.list.indexOf(value) + 1
    if (code === 0) throw new RangeError(`not a value of this map: ${String(value)}`)
    const position = this.positions.get(id)
    if (position === undefined) {
      this.othersMap().set(id, value)
      return this
    }
    if (this.codes[position] === 0) this.placed += 1
    this.codes[position] = code
    return this
  }

  delete(id: string): boolean {
    const position = this.positions.get(id)
    if (position === undefined) return this.others?.delete(id) ?? false
    if (this.codes[position] === 0) return false
    this.codes[position] = 0
    this.placed -= 1
    return true
  }

  *entries(): MapIterator<[string, V]> {
    if (this.others !== undefined) yield* this.others
    const codes = this.codes
    for (let position = 0; position < codes.length; position += 1) {
      const value = this.valueAt(codes[position] ?? 0)
      const id = this.ids[position]
      if (value !== undefined && id !== undefined) yield [id, value]
    }
  }
}
