import { numberAt } from '@plan/shell/common'

/** Max-heap of step positions (compared in a typed array, no map): priority, then plan order. */
export class ReadyQueue {
  readonly #heap: number[] = []
  readonly #priority: Int32Array

  /** @param priority of each step, by position */
  constructor(priority: Int32Array) {
    this.#priority = priority
  }

  get size(): number {
    return this.#heap.length
  }

  #before(left: number, right: number): boolean {
    const byPriority = (this.#priority[left] ?? 0) - (this.#priority[right] ?? 0)
    if (byPriority !== 0) return byPriority > 0
    return left < right
  }

  push(position: number): void {
    const heap = this.#heap
    heap.push(position)
    let at = heap.length - 1
    while (at > 0) {
      const parent = (at - 1) >> 1
      if (!this.#before(numberAt(heap, at), numberAt(heap, parent))) break
      ;[heap[at], heap[parent]] = [numberAt(heap, parent), numberAt(heap, at)]
      at = parent
    }
  }

  pop(): number | undefined {
    const heap = this.#heap
    const top = heap[0]
    const last = heap.pop()
    if (heap.length === 0 || last === undefined) return top
    heap[0] = last
    let at = 0
    for (;;) {
      const left = at * 2 + 1
      const right = left + 1
      let best = at
      if (left < heap.length && this.#before(numberAt(heap, left), numberAt(heap, best)))
        best = left
      if (right < heap.length && this.#before(numberAt(heap, right), numberAt(heap, best)))
        best = right
      if (best === at) break
      ;[heap[at], heap[best]] = [numberAt(heap, best), numberAt(heap, at)]
      at = best
    }
    return top
  }

  /** Removes and returns every queued position. */
  drain(): number[] {
    return this.#heap.splice(0)
  }
}
