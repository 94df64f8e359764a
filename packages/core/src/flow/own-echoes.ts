import { valueAt } from '@plan/shell/common'
import type { JsonValue } from '../types/json-value.js'
import { FRAGMENT_LENGTH, normaliseText } from './untrusted-text-index.js'

/** The strings of a JSON value, and with `keys` its object keys, to a depth of 128. */
export function collectTexts(
  value: JsonValue | undefined,
  out: string[],
  keys: boolean,
  depth = 0,
): void {
  if (typeof value === 'string') out.push(value)
  else if (Array.isArray(value)) {
    if (depth < 128) for (const item of value) collectTexts(item, out, keys, depth + 1)
  } else if (typeof value === 'object' && value !== null && depth < 128) {
    for (const key of Object.keys(value)) {
      if (keys) out.push(key)
      collectTexts(valueAt(value, key), out, keys, depth + 1)
    }
  }
}

/** The texts an output keeps; `pieces` when they are pieces of normalised text. */
export interface KeptTexts {
  readonly texts: readonly string[]
  readonly pieces: boolean
}

/**
 * The texts of a call's output less the call's own argument values: a tool echoing its input
 * (`wrote docs/notes.md`) hands back the caller's text, carrying the call's label, not new outside
 * text. The rest stays, in pieces, so what the tool added around the echo is still indexed. Values
 * shorter than a fragment are never found and left alone: a short argument cuts no output into
 * unindexed pieces. Texts come back as is if no argument is that long, else as normalised pieces.
 */
export function withoutOwnEchoes(texts: readonly string[], args: JsonValue): KeptTexts {
  const values: string[] = []
  collectTexts(args, values, false)
  // Only values long enough to be found in the text index are cut out.
  const own = values.map(normaliseText).filter((normal) => normal.length >= FRAGMENT_LENGTH)
  if (own.length === 0) return { texts, pieces: false }
  own.sort((a, b) => b.length - a.length)
  // an output often holds a text twice (`content` and `structuredContent`): it is cut once
  const cut = new Map<string, readonly string[]>()
  const piecesOf = (text: string): readonly string[] => {
    let pieces = cut.get(text)
    if (pieces === undefined) {
      pieces = [normaliseText(text)]
      for (const echo of own) pieces = pieces.flatMap((piece) => piece.split(echo))
      pieces = pieces.filter((piece) => piece.length > 0)
      cut.set(text, pieces)
    }
    return pieces
  }
  return { texts: texts.flatMap(piecesOf), pieces: true }
}
