/**
 * A bounded cache of command check results, in two generations: a hit in the young one is a
 * single `Map.get`; a hit in the old one moves the entry to the young one. When the young one
 * is full, it becomes the old one (the former old one is dropped), so an entry used since the
 * last turn survives it and at most `2 × generation` entries are held. The results are those
 * of a deterministic check, so the cache only saves time: a miss computes the same result.
 */
export class CommandResultCache<T> {
  #young = new Map<string, T>()
  #old = new Map<string, T>()
  readonly #generation: number

  /** `generation`: entries per generation (at least 1). */
  constructor(generation: number) {
    this.#generation = Math.max(1, Math.floor(generation))
  }

  /** The cached result of `command`, or undefined. */
  get(command: string): T | undefined {
    const young = this.#young.get(command)
    if (young !== undefined) return young
    const old = this.#old.get(command)
    if (old !== undefined) {
      this.#old.delete(command)
      this.set(command, old)
    }
    return old
  }

  /** Stores the result of a command that {@link get} did not find. */
  set(command: string, result: T): void {
    if (this.#young.size >= this.#generation) {
      this.#old = this.#young
      this.#young = new Map()
    }
    this.#young.set(command, result)
  }

  /** Entries held (at most twice the generation size). */
  get size(): number {
    return this.#young.size + this.#old.size
  }
}
