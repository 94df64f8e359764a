import type { GuardStore, SavedRunState } from '@plan/core'

function ignore(): void {}

/**
 * The order of one run's writes to its store, in this process. Writes go out at once, as
 * before, except around a conditional save (a resumed call's write-ahead): it waits until
 * every write issued before it has settled, and writes issued after it wait until it has, so
 * that the store holds the revision it expects unless another invocation wrote in between.
 */
export class RunWrites {
  /** Writes issued and not yet settled. */
  readonly #pending = new Set<Promise<void>>()
  /** Settles when the last conditional save issued has; undefined when none is pending. */
  #barrier: Promise<void> | undefined

  /** Issues `write`, after the pending conditional save when there is one. */
  plain<T>(write: () => Promise<T>): Promise<T> {
    const barrier = this.#barrier
    return this.#track(barrier === undefined ? write() : barrier.then(write))
  }

  /** Issues `write` once every write issued before it has settled. */
  conditional<T>(write: () => Promise<T>): Promise<T> {
    const before = [...this.#pending]
    const result = this.#track(Promise.allSettled(before).then(write))
    const barrier = result.then(ignore, ignore)
    this.#barrier = barrier
    void barrier.then(() => {
      if (this.#barrier === barrier) this.#barrier = undefined
    })
    return result
  }

  #track<T>(result: Promise<T>): Promise<T> {
    const settled = result.then(ignore, ignore)
    this.#pending.add(settled)
    void settled.then(() => this.#pending.delete(settled))
    return result
  }
}

/** `store` with its saves of the run ordered by `writes` (see {@link RunWrites}). */
export function orderedStore(store: GuardStore, writes: RunWrites): GuardStore {
  const saveIf = store.saveIfRevision?.bind(store)
  return {
    load: (runId) => store.load(runId),
    reserve: (reservations) => store.reserve(reservations),
    save: (runId, saved) => writes.plain(() => store.save(runId, saved)),
    ...(saveIf === undefined
      ? {}
      : {
          saveIfRevision: (runId: string, saved: SavedRunState, expected: number) =>
            writes.conditional(() => saveIf(runId, saved, expected)),
        }),
  }
}
