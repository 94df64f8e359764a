import { stringAt } from '@plan/shell/common'
import { MapView } from './map-view.js'
/**
 * A {@link StepValues} for values of a short, fixed list (a status, a label): the plan's steps
 * keep a one-byte code by position, not a pointer, and any other id a small map entry. The
 * same order of iteration: the other ids first, in the order they were set, then the plan's
 * steps in plan order.
 */
export class StepCodes<V extends string> extends MapView<V> {
  /** The values by code; code 0 is no value. */
  readonly #byCode: readonly (V | undefined)[]
  readonly #codeOf: ReadonlyMap<V, number>
  #positions: ReadonlyMap<string, number> = new Map()
  #ids: readonly string[] = []
  #codes = new Uint8Array(0)
  #placed = 0
  #others = new Map<string, V>()

  /** @param values every value a step may have (at most 255) */
  constructor(values: readonly V[]) {
    super()
    if (values.length > 255) throw new RangeError('at most 255 values')
    this.#byCode = [undefined, ...values]
    this.#codeOf = new Map(values.map((value, index) => [value, index + 1]))
  }

  get size(): number {
    return this.#placed + this.#others.size
  }

  /** Keeps the values by position for a plan's steps, as {@link StepValues.place} does. */
  place(ids: readonly string[], positions: ReadonlyMap<string, number>): void {
    const codes = this.#codes
    for (let position = 0; position < codes.length; position += 1) {
      const value = this.#byCode[codes[position] ?? 0]
      const id = this.#ids[position]
      if (value !== undefined && id !== undefined) this.#others.set(id, value)
    }
    this.#positions = positions
    this.#ids = ids
    // A plan as long as the last keeps its codes, emptied.
    if (codes.length === ids.length) codes.fill(0)
    else this.#codes = new Uint8Array(ids.length)
    this.#placed = 0
    // Indexed: `ids` is often a frozen array, which a for-of walks through the runtime.
    for (let position = 0; position < ids.length; position += 1) {
      const id = stringAt(ids, position)
      const value = this.#others.get(id)
      if (value === undefined || !this.#others.delete(id)) continue
      this.set(id, value)
    }
  }

  get(id: string): V | undefined {
    const position = this.#positions.get(id)
    return position === undefined ? this.#others.get(id) : this.#byCode[this.#codes[position] ?? 0]
  }

  /** Sets a value of the list given to the constructor; a RangeError for any other. */
  set(id: string, value: V): this {
    const code = this.#codeOf.get(value)
    if (code === undefined) throw new RangeError(`not a value of this map: ${String(value)}`)
    const position = this.#positions.get(id)
    if (position === undefined) {
      this.#others.set(id, value)
      return this
    }
    if (this.#codes[position] === 0) this.#placed += 1
    this.#codes[position] = code
    return this
  }

  delete(id: string): boolean {
    const position = this.#positions.get(id)
    if (position === undefined) return this.#others.delete(id)
    if (this.#codes[position] === 0) return false
    this.#codes[position] = 0
    this.#placed -= 1
    return true
  }

  *entries(): MapIterator<[string, V]> {
    yield* this.#others
    const codes = this.#codes
    for (let position = 0; position < codes.length; position += 1) {
      const value = this.#byCode[codes[position] ?? 0]
      const id = this.#ids[position]
      if (value !== undefined && id !== undefined) yield [id, value]
    }
  }
}
