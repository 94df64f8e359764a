import type { UntrustedTextIndexState } from '../types/untrusted-flow.js'

/** Length of the text fragments that are indexed and looked up (after normalisation). */
export const FRAGMENT_LENGTH = 12
/** Distance between indexed fragments of an untrusted text. */
export const FRAGMENT_STRIDE = 4
/**
 * Shortest shared text that is always found: any common substring this long contains an
 * indexed fragment. Shorter ones (down to {@link FRAGMENT_LENGTH}) may be found.
 */
export const GUARANTEED_MATCH_LENGTH = FRAGMENT_LENGTH + FRAGMENT_STRIDE - 1
/**
 * Most normalised characters indexed in one run, each distinct text counted once (a text
 * recorded again is held as the first); past it the index is saturated.
 */
export const MAX_INDEXED_CHARACTERS = 4 * 1024 * 1024

/** The texts of an output with none indexed: one array for all of them. */
export const NO_TEXTS: readonly string[] = Object.freeze([])

// ASCII text is its own NFKC form: no call into Unicode normalisation for it.
const ASCII = /^[\t\n\r\x20-\x7e]*$/

/** Lowercase, compatibility-normalised, whitespace runs collapsed: small edits do not hide a paste. */
export function normaliseText(text: string): string {
  return (ASCII.test(text) ? text : text.normalize('NFKC')).toLowerCase().replace(/\s+/gu, ' ')
}

/**
 * {@link normaliseText} of a piece of normalised text (a substring of its output): an ASCII
 * piece is lowercase with single spaces already, so it is its own normal form.
 */
export function normalisePiece(piece: string): string {
  return ASCII.test(piece) ? piece : normaliseText(piece)
}

/** The texts an output keeps: its one text's shared list, or a list of its own for several. */
function keptTexts(kept: readonly (readonly string[])[]): readonly string[] {
  if (kept.length === 0) return NO_TEXTS
  if (kept.length === 1) return kept[0] ?? NO_TEXTS
  return kept.map((only) => only[0] ?? '')
}

/**
 * Finds untrusted output text pasted into later arguments. Fragments of
 * {@link FRAGMENT_LENGTH} characters are indexed every {@link FRAGMENT_STRIDE} characters of
 * each untrusted string; a query looks up the fragment at every position of its string. So a
 * query finds any shared text of {@link GUARANTEED_MATCH_LENGTH}+ characters, whichever side
 * contains the other, in time linear in the query and memory a quarter of the indexed text.
 *
 * Each output has an ordinal, and a query names how many outputs it may have seen: text that
 * was written into a plan before an output existed cannot have come from it.
 */
export class UntrustedTextIndex {
  readonly #fragments = new Map<string, number>()
  /**
   * Texts whose fragments are in the index already, each to a list of just itself: indexing one
   * again would add none, so a repeat is kept as this list and not counted against the capacity.
   */
  readonly #indexedTexts = new Map<string, readonly string[]>()
  /** Each recorded output's step id, by ordinal (kept apart from its texts: no object per output). */
  readonly #stepIds: string[] = []
  /**
   * Each recorded output's kept texts, by ordinal, up to the last output that kept any: the
   * outputs after it (most of a long run of short outputs) have no slot here.
   */
  readonly #texts: (readonly string[])[] = []
  #characters = 0

  /** Appends an output: its step id, and its texts when it kept any. */
  #push(stepId: string, texts: readonly string[]): void {
    if (texts.length > 0) {
      while (this.#texts.length < this.#stepIds.length) this.#texts.push(NO_TEXTS)
      this.#texts.push(texts)
    }
    this.#stepIds.push(stepId)
  }
  #saturatedAt: number | undefined

  /** Number of outputs recorded so far; the next one gets this ordinal. */
  get size(): number {
    return this.#stepIds.length
  }

  /**
   * Records the string leaves (and object keys) of one untrusted output. A value that is not
   * JSON, or text past the index's capacity, saturates the index: from then on every long
   * enough query that may have seen it counts as a match (fail closed). `pieces`: each text is
   * a piece of normalised text (see {@link normalisePiece}).
   */
  add(stepId: string, texts: readonly string[], complete = true, pieces = false): number {
    const ordinal = this.#stepIds.length
    const kept: (readonly string[])[] = []
    if (!complete) this.#saturatedAt ??= ordinal
    for (const text of texts) {
      const normal = pieces ? normalisePiece(text) : normaliseText(text)
      if (normal.length < FRAGMENT_LENGTH) continue
      const stored = this.#keep(normal, ordinal)
      if (stored === undefined) this.#saturatedAt ??= ordinal
      else kept.push(stored)
    }
    this.#push(stepId, keptTexts(kept))
    return ordinal
  }

  /**
   * The string to keep for a normalised text of output `ordinal`: a text indexed before is there
   * with an earlier ordinal, which every lookup that may see this output may see too, so it adds
   * nothing; a new one is indexed, or undefined when it is past the capacity.
   */
  #keep(normal: string, ordinal: number): readonly string[] | undefined {
    const known = this.#indexedTexts.get(normal)
    if (known !== undefined) return known
    if (this.#characters + normal.length > MAX_INDEXED_CHARACTERS) return undefined
    return this.#store(normal, ordinal)
  }

  /** Indexes a new normalised text under `ordinal`, counting it against the capacity. */
  #store(normal: string, ordinal: number): readonly string[] {
    this.#characters += normal.length
    const only = Object.freeze([normal])
    this.#indexedTexts.set(normal, only)
    const last = normal.length - FRAGMENT_LENGTH
    for (let position = 0; position <= last; position += FRAGMENT_STRIDE) {
      const fragment = normal.slice(position, position + FRAGMENT_LENGTH)
      if (!this.#fragments.has(fragment)) this.#fragments.set(fragment, ordinal)
    }
    return only
  }

  /**
   * The step id of the first untrusted output (among the first `seen` recorded) that shares
   * text with `text`, or undefined; `"*"` when only saturation makes it a match.
   */
  find(text: string, seen: number = this.#stepIds.length): string | undefined {
    if (seen <= 0) return undefined
    const normal = normaliseText(text)
    if (normal.length < FRAGMENT_LENGTH) return undefined
    const last = normal.length - FRAGMENT_LENGTH
    for (let position = 0; position <= last; position += 1) {
      const ordinal = this.#fragments.get(normal.slice(position, position + FRAGMENT_LENGTH))
      if (ordinal !== undefined && ordinal < seen) return this.#stepIds[ordinal] ?? '*'
    }
    if (this.#saturatedAt !== undefined && this.#saturatedAt < seen)
      return this.#stepIds[this.#saturatedAt] ?? '*'
    return undefined
  }

  /** `toJSON().outputs` from position `from` on. */
  outputsFrom(from: number): UntrustedTextIndexState['outputs'] {
    const outputs: { stepId: string; texts: string[] }[] = []
    for (let ordinal = Math.max(0, from); ordinal < this.#stepIds.length; ordinal += 1)
      outputs.push({
        stepId: this.#stepIds[ordinal] ?? '',
        texts: [...(this.#texts[ordinal] ?? NO_TEXTS)],
      })
    return outputs
  }

  /** `toJSON().saturatedAt`. */
  get saturatedAt(): number | null {
    return this.#saturatedAt ?? null
  }

  toJSON(): UntrustedTextIndexState {
    return {
      outputs: this.outputsFrom(0),
      saturatedAt: this.saturatedAt,
    }
  }

  /** Rebuilds an index from {@link UntrustedTextIndex.toJSON}. */
  static fromJSON(state: UntrustedTextIndexState): UntrustedTextIndex {
    const index = new UntrustedTextIndex()
    state.outputs.forEach((output, ordinal) => {
      // Saved texts were within the capacity when indexed; a repeat is kept as the first.
      const kept = output.texts.map(
        (text) => index.#indexedTexts.get(text) ?? index.#store(text, ordinal),
      )
      index.#push(output.stepId, keptTexts(kept))
    })
    if (state.saturatedAt !== null) index.#saturatedAt = state.saturatedAt
    return index
  }
}
