import { stringAt } from '../util/item-at.js'
/** A max-heap of step ids: highest priority first, then lowest index (plan order). */
export class ReadyQueue {
  readonly #heap: string[] = []
  readonly #priority: ReadonlyMap<string, number>
  readonly #index: ReadonlyMap<string, number>

  constructor(priority: ReadonlyMap<string, number>, index: ReadonlyMap<string, number>) {
    this.#priority = priority
    this.#index = index
  }

  get size(): number {
    return this.#heap.length
  }

  #before(left: string, right: string): boolean {
    const byPriority = (this.#priority.get(left) ?? 0) - (this.#priority.get(right) ?? 0)
    if (byPriority !== 0) return byPriority > 0
    return (this.#index.get(left) ?? 0) < (this.#index.get(right) ?? 0)
  }

  push(id: string): void {
    const heap = this.#heap
    heap.push(id)
    let position = heap.length - 1
    while (position > 0) {
      const parent = (position - 1) >> 1
      if (!this.#before(stringAt(heap, position), stringAt(heap, parent))) break
      ;[heap[position], heap[parent]] = [stringAt(heap, parent), stringAt(heap, position)]
      position = parent
    }
  }

  pop(): string | undefined {
    const heap = this.#heap
    const top = heap[0]
    const last = heap.pop()
    if (heap.length === 0 || last === undefined) return top
    heap[0] = last
    let position = 0
    for (;;) {
      const left = position * 2 + 1
      const right = left + 1
      let best = position
      if (left < heap.length && this.#before(stringAt(heap, left), stringAt(heap, best)))
        best = left
      if (right < heap.length && this.#before(stringAt(heap, right), stringAt(heap, best)))
        best = right
      if (best === position) break
      ;[heap[position], heap[best]] = [stringAt(heap, best), stringAt(heap, position)]
      position = best
    }
    return top
  }

  /** Removes and returns every queued id. */
  drain(): string[] {
    return this.#heap.splice(0)
  }
}
