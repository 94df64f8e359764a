/**
 * A read-only `Map` of step ids to never-`undefined` values kept some other way (columns by plan
 * position): a subclass gives `size`, `get` and `entries`; the rest follows (`has` from `get`).
 */
export abstract class MapView<V> implements ReadonlyMap<string, V> {
  abstract readonly size: number
  abstract get(id: string): V | undefined
  abstract entries(): MapIterator<[string, V]>

  has(id: string): boolean {
    return this.get(id) !== undefined
  }

  *keys(): MapIterator<string> {
    for (const [id] of this.entries()) yield id
  }

  *values(): MapIterator<V> {
    for (const [, value] of this.entries()) yield value
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries()
  }

  forEach(callback: (value: V, id: string, map: ReadonlyMap<string, V>) => void): void {
    for (const [id, value] of this.entries()) callback(value, id, this)
  }
}
