import { stringAt } from '@plan/shell/common'
import { MapView } from '../util/map-view.js'
import { RAN_OUT, SlotTable } from './slot-table.js'

/**
 * Each of a plan's distinct step ids to its position: an open-addressing table of 32-bit slots over
 * the plan's own id array, a few bytes per step where a Map takes some forty; a Map if ids collide
 * too often (as `StepIndex`). Iterates in position order, as a Map filled in plan order does.
 */
export class IdPositions extends MapView<number> {
  readonly #ids: readonly string[]
  readonly #table: SlotTable
  readonly #fallback: Map<string, number> | undefined
  // The id found last and its position: a guard looks a call's step up several times in a row.
  #lastId: string | undefined
  #lastPosition = 0

  /** @param ids distinct step ids, by position (kept, not copied: the plan's frozen array) */
  constructor(ids: readonly string[]) {
    super()
    this.#ids = ids
    this.#table = new SlotTable(ids.length)
    this.#fallback = this.#fill() ? undefined : new Map(ids.map((id, position) => [id, position]))
  }

  /** Puts every id in the table; false when one needs more than `MAX_PROBES` probes. */
  #fill(): boolean {
    const ids = this.#ids
    const table = this.#table
    for (let position = 0; position < ids.length; position += 1) {
      const id = stringAt(ids, position)
      const hash = table.hash(id)
      const found = table.probe(ids, id, hash)
      if (found === RAN_OUT) return false
      if (found < 0) table.put(~found, hash, position)
    }
    return true
  }

  get size(): number {
    return this.#ids.length
  }

  get(id: string): number | undefined {
    if (this.#fallback !== undefined) return this.#fallback.get(id)
    if (typeof id !== 'string') return undefined
    if (id === this.#lastId) return this.#lastPosition
    const found = this.#table.probe(this.#ids, id, this.#table.hash(id))
    if (found < 0) return undefined
    this.#lastId = id
    this.#lastPosition = found
    return found
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

/** {@link IdPositions} for a one-step plan (a model turn's one call): one comparison, no table. */
export class OneIdPosition extends MapView<number> {
  readonly #id: string

  constructor(id: string) {
    super()
    this.#id = id
  }

  get size(): number {
    return 1
  }

  get(id: string): number | undefined {
    return id === this.#id ? 0 : undefined
  }

  override has(id: string): boolean {
    return id === this.#id
  }

  *entries(): MapIterator<[string, number]> {
    yield [this.#id, 0]
  }
}
