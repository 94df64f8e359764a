import type { UntrustedTextIndexState } from '../types/untrusted-flow.js'

/** Length of the text fragments that are indexed and looked up (after normalisation). */
export const FRAGMENT_LENGTH = 12
/** Distance between indexed fragments of an untrusted text. */
export const FRAGMENT_STRIDE = 4
/** Shared text this long is always found (it holds an indexed fragment); shorter may be. */
export const GUARANTEED_MATCH_LENGTH = FRAGMENT_LENGTH + FRAGMENT_STRIDE - 1
/** Most normalised characters indexed per run (each distinct text once); then it saturates. */
export const MAX_INDEXED_CHARACTERS = 4 * 1024 * 1024

/** The texts of an output with none indexed: one array for all of them. */
export const NO_TEXTS: readonly string[] = Object.freeze([])

// ASCII text is its own NFKC form: no call into Unicode normalisation for it.
const ASCII = /^[\t\n\r\x20-\x7e]*$/

/** Lowercase, compatibility-normalised, whitespace runs collapsed: small edits do not hide a paste. */
export function normaliseText(text: string): string {
  return (ASCII.test(text) ? text : text.normalize('NFKC')).toLowerCase().replace(/\s+/gu, ' ')
}

/** {@link normaliseText} of a piece of normalised text: an ASCII piece is its own normal form. */
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
 * Finds untrusted output text pasted into later arguments. Fragments of {@link FRAGMENT_LENGTH}
 * characters are indexed every {@link FRAGMENT_STRIDE} characters of each untrusted string; a query
 * looks up the fragment at every position of its string. So it finds any shared text of
 * {@link GUARANTEED_MATCH_LENGTH}+ characters, whichever side contains the other, in time linear in
 * the query and memory a quarter of the indexed text. Each output has an ordinal; a query names how
 * many it may have seen: text written into a plan before an output existed cannot come from it.
 */
export class UntrustedTextIndex {
  private fragments: Map<string, number> | undefined
  /** Indexed texts, each to a list of itself: a repeat adds nothing; kept as that, uncounted. */
  private indexedTexts: Map<string, readonly string[]> | undefined
  /** Each recorded output's step id, by ordinal (kept apart from its texts: no object per output). */
  private readonly stepIds: string[] = []
  /** Each output's kept texts by ordinal, up to the last that kept any (later ones get no slot). */
  private readonly texts: (readonly string[])[] = []
  private characters = 0

  /** Appends an output: its step id, and its texts when it kept any. */
  private push(stepId: string, texts: readonly string[]): void {
    if (texts.length > 0) {
      while (this.texts.length < this.stepIds.length) this.texts.push(NO_TEXTS)
      this.texts.push(texts)
    }
    this.stepIds.push(stepId)
  }
  private saturatedOrdinal: number | undefined

  /** Number of outputs recorded so far; the next one gets this ordinal. */
  get size(): number {
    return this.stepIds.length
  }

  /**
   * Records the string leaves and object keys of one untrusted output. A non-JSON value, or text
   * past the capacity, saturates the index: then any long enough query that may have seen it
   * matches (fail closed). `pieces`: texts are normalised pieces ({@link normalisePiece}).
   */
  add(stepId: string, texts: readonly string[], complete = true, pieces = false): number {
    const ordinal = this.stepIds.length
    const kept: (readonly string[])[] = []
    if (!complete) this.saturatedOrdinal ??= ordinal
    for (const text of texts) {
      const normal = pieces ? normalisePiece(text) : normaliseText(text)
      if (normal.length < FRAGMENT_LENGTH) continue
      const stored = this.keep(normal, ordinal)
      if (stored === undefined) this.saturatedOrdinal ??= ordinal
      else kept.push(stored)
    }
    this.push(stepId, keptTexts(kept))
    return ordinal
  }

  /**
   * The string to keep for a normalised text of output `ordinal`: a text indexed before has an
   * earlier ordinal, seen by every lookup that may see this output, so adds nothing; a new one is
   * indexed, or undefined past the capacity.
   */
  private keep(normal: string, ordinal: number): readonly string[] | undefined {
    const known = this.indexedTexts?.get(normal)
    if (known !== undefined) return known
    if (this.characters + normal.length > MAX_INDEXED_CHARACTERS) return undefined
    return this.store(normal, ordinal)
  }

  /** Indexes a new normalised text under `ordinal`, counting it against the capacity. */
  private store(normal: string, ordinal: number): readonly string[] {
    this.characters += normal.length
    const only = Object.freeze([normal])
    this.indexedTexts ??= new Map()
    this.indexedTexts.set(normal, only)
    const last = normal.length - FRAGMENT_LENGTH
    this.fragments ??= new Map()
    for (let position = 0; position <= last; position += FRAGMENT_STRIDE) {
      const fragment = normal.slice(position, position + FRAGMENT_LENGTH)
      if (!this.fragments.has(fragment)) this.fragments.set(fragment, ordinal)
    }
    return only
  }

  /** Step id of the first output (of the first `seen`) overlapping `text`, or that saturated. */
  find(text: string, seen: number = this.stepIds.length): string | undefined {
    if (seen <= 0) return undefined
    const normal = normaliseText(text)
    if (normal.length < FRAGMENT_LENGTH) return undefined
    const last = normal.length - FRAGMENT_LENGTH
    for (let position = 0; position <= last; position += 1) {
      const ordinal = this.fragments?.get(normal.slice(position, position + FRAGMENT_LENGTH))
      if (ordinal !== undefined && ordinal < seen) return this.stepIds[ordinal] ?? '*'
    }
    if (this.saturatedOrdinal !== undefined && this.saturatedOrdinal < seen)
      return this.stepIds[this.saturatedOrdinal] ?? '*'
    return undefined
  }

  /** `toJSON().outputs` from position `from` on. */
  outputsFrom(from: number): UntrustedTextIndexState['outputs'] {
    const outputs: { stepId: string; texts: string[] }[] = []
    for (let ordinal = Math.max(0, from); ordinal < this.stepIds.length; ordinal += 1)
      outputs.push({
        stepId: this.stepIds[ordinal] ?? '',
        texts: [...(this.texts[ordinal] ?? NO_TEXTS)],
      })
    return outputs
  }

  /** `toJSON().saturatedAt`. */
  get saturatedAt(): number | null {
    return this.saturatedOrdinal ?? null
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
        (text) => index.indexedTexts?.get(text) ?? index.store(text, ordinal),
      )
      index.push(output.stepId, keptTexts(kept))
    })
    if (state.saturatedAt !== null) index.saturatedOrdinal = state.saturatedAt
    return index
  }
}
