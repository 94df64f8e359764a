/**
 * A scripted human reviewer who wears down: it reads the first `attention` questions of a run
 * and refuses them (each one a call the guard refused after untrusted output), then approves
 * every later one without reading it. Approval fatigue, as a number of questions.
 */
export class FatiguedReviewer {
  readonly #attention: number
  #asked = 0
  #approved = 0

  constructor(attention: number) {
    this.#attention = attention
  }

  /** The answer to one question: true approves the call once. */
  answer(_question: string): boolean {
    this.#asked += 1
    if (this.#asked <= this.#attention) return false
    this.#approved += 1
    return true
  }

  /** Questions put to this reviewer so far. */
  get asked(): number {
    return this.#asked
  }

  /** Questions it approved. */
  get approved(): number {
    return this.#approved
  }
}

/** How many questions the replay's reviewer reads before it approves whatever it is asked. */
export const REVIEWER_ATTENTION = 3
