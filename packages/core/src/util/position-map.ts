import { int32At, itemAt, popped, stringAt } from '@plan/shell/common'
import { MapView } from './map-view.js'
import { clearSlots, unsetSlots } from './unset-slots.js'

const NO_POSITIONS: ReadonlyMap<string, number> = new Map()
const NO_IDS: readonly string[] = Object.freeze([])
const NO_SLOTS = new Int32Array(0)

/**
 * A map from step id to value for a changing few of one plan's steps (the ready ones): values by
 * position in a dense array, the positions with one in an unordered list. Set and delete allocate
 * nothing once the list has grown (a `Map` set and emptied again makes a new table at each
 * emptying, a long-lived one in old space). Iteration is in plan order and costs the entries.
 */
export class PositionMap<V> extends MapView<V> {
  private positions: ReadonlyMap<string, number> = NO_POSITIONS
  private ids: readonly string[] = NO_IDS
  private byPosition: (V | undefined)[] = []
  /** The positions that have a value, in no order. */
  private readonly listed: number[] = []
  /** Where each position with a value is in {@link PositionMap.listed}. */
  private slots: Int32Array = NO_SLOTS

  get size(): number {
    return this.listed.length
  }

  /** Empties the map and keeps it for a plan whose step ids are `ids` (`positions` finds one). */
  place(ids: readonly string[], positions: ReadonlyMap<string, number>): void {
    this.positions = positions
    this.ids = ids
    this.listed.length = 0
    // A plan as long as the last keeps its arrays, emptied (a slot is read only where set).
    if (this.byPosition.length === ids.length) {
      clearSlots(this.byPosition)
      return
    }
    this.byPosition = unsetSlots(ids.length)
    this.slots = ids.length === 0 ? NO_SLOTS : new Int32Array(ids.length)
  }

  get(id: string): V | undefined {
    const position = this.positions.get(id)
    return position === undefined ? undefined : this.byPosition[position]
  }

  /** Sets the value of a step of the plan; an id of no step of it is an error. */
  set(id: string, value: V): this {
    const position = this.positions.get(id)
    if (position === undefined) throw new Error(`${JSON.stringify(id)} is no step of the plan`)
    if (this.byPosition[position] === undefined) {
      this.slots[position] = this.listed.length
      this.listed.push(position)
    }
    this.byPosition[position] = value
    return this
  }

  delete(id: string): boolean {
    const position = this.positions.get(id)
    if (position === undefined || this.byPosition[position] === undefined) return false
    this.byPosition[position] = undefined
    const slot = int32At(this.slots, position)
    const last = popped(this.listed)
    if (last !== position) {
      this.listed[slot] = last
      this.slots[last] = slot
    }
    return true
  }

  *entries(): MapIterator<[string, V]> {
    const positions = this.listed.slice().sort((left, right) => left - right)
    for (const position of positions)
      yield [stringAt(this.ids, position), itemAt(this.byPosition, position)]
  }
}
