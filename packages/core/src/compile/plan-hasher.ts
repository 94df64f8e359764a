import type { CompiledStep } from '../types/compiled-plan.js'
import { createSha256 } from '../util/portable-crypto.js'

/** One step as it enters the plan hash; keys in sorted order. */
export interface HashedStep {
  readonly args: CompiledStep['args']
  readonly dependsOn: readonly string[]
  readonly id: string
  readonly tool: string
}

// Steps stringified at a time: the hash never needs the whole plan's text in memory at once.
const CHUNK = 4096

/**
 * SHA-256 of `{"steps":[…],"version":1}`, the canonical JSON of a compiled plan, fed to the
 * hash a chunk of steps at a time. Keys in sorted order make each step's literal canonical as
 * it stands (arguments are copied in sorted key order when they are checked).
 */
export class PlanHasher {
  readonly #hash = createSha256().update('{"steps":[')
  readonly #pending: HashedStep[] = []
  #empty = true

  add(step: HashedStep): void {
    this.#pending.push(step)
    if (this.#pending.length === CHUNK) this.#flush()
  }

  /** The hex digest; the hasher cannot be used afterwards. */
  digest(): string {
    this.#flush()
    return this.#hash.update('],"version":1}').digestHex()
  }

  #flush(): void {
    if (this.#pending.length === 0) return
    const text = JSON.stringify(this.#pending)
    if (!this.#empty) this.#hash.update(',')
    this.#hash.update(text.slice(1, -1))
    this.#empty = false
    this.#pending.length = 0
  }
}
