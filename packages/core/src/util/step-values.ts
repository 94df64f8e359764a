import { stringAt } from '@plan/shell/common'
import { MapView } from './map-view.js'
import { clearSlots, unsetSlots } from './unset-slots.js'

const NO_POSITIONS: ReadonlyMap<string, number> = new Map()
const NO_IDS: readonly string[] = Object.freeze([])

/**
 * A map from step id to value, kept by position for one plan's steps (a dense array, no hash entry
 * per step) and in a small map for other ids. It iterates the other ids first, in the order set,
 * then the plan's steps in plan order: for one plan, the order of a `Map` filled in plan order.
 */
export class StepValues<V> extends MapView<V> {
  private positions: ReadonlyMap<string, number> = NO_POSITIONS
  private ids: readonly string[] = NO_IDS
  /** By position; `undefined` where a step has no value. */
  private byPosition: (V | undefined)[] = []
  private placed = 0
  /** Made at the first value of another id: a guard holds several, most never need it. */
  private others: Map<string, V> | undefined

  get size(): number {
    return this.placed + (this.others?.size ?? 0)
  }

  private othersMap(): Map<string, V> {
    this.others ??= new Map()
    return this.others
  }

  /**
   * Keeps the values by position for a plan whose step ids are `ids` (`positions` finds one): the
   * old plan's values move into the map, then those of the new plan's ids into the array. It costs
   * the two plans' lengths, not the number of values, so a run of many one-step plans (per-turn
   * mode) stays linear; iteration order is as if every value had been set again.
   */
  place(ids: readonly string[], positions: ReadonlyMap<string, number>): void {
    const values = this.byPosition
    for (let position = 0; position < values.length; position += 1) {
      const value = values[position]
      const id = this.ids[position]
      if (value !== undefined && id !== undefined) this.othersMap().set(id, value)
    }
    this.positions = positions
    this.ids = ids
    // A plan as long as the last (a turn's one step after another) keeps its array, emptied.
    if (values.length === ids.length) clearSlots(values)
    else this.byPosition = unsetSlots(ids.length)
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
    return position === undefined ? this.others?.get(id) : this.byPosition[position]
  }

  set(id: string, value: V): this {
    const position = this.positions.get(id)
    if (position === undefined) {
      this.othersMap().set(id, value)
      return this
    }
    if (this.byPosition[position] === undefined) this.placed += 1
    this.byPosition[position] = value
    return this
  }

  delete(id: string): boolean {
    const position = this.positions.get(id)
    if (position === undefined) return this.others?.delete(id) ?? false
    if (this.byPosition[position] === undefined) return false
    this.byPosition[position] = undefined
    this.placed -= 1
    return true
  }

  *entries(): MapIterator<[string, V]> {
    if (this.others !== undefined) yield* this.others
    const values = this.byPosition
    for (let position = 0; position < values.length; position += 1) {
      const value = values[position]
      const id = this.ids[position]
      if (value !== undefined && id !== undefined) yield [id, value]
    }
  }
}
