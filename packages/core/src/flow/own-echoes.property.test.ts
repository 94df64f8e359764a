import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { withoutOwnEchoes } from './own-echoes.js'
import {
  FRAGMENT_LENGTH,
  normalisePiece,
  normaliseText,
  UntrustedTextIndex,
} from './untrusted-text-index.js'

/** Text mixing ASCII (spaces, tabs, capitals) with other Unicode (accents, ligatures, width forms). */
const mixedText = fc.string({
  maxLength: 80,
  unit: fc.oneof(
    fc.constantFrom(' ', '\t', '\n', '  ', 'A', 'b', 'Z', '/', '.'),
    fc.constantFrom('É', 'ﬁ', 'Ａ', 'ǅ', 'İ', 'Σ', 'ß', '\u0301', '\u00a0', '\u2126'),
    fc.string({ minLength: 1, maxLength: 1, unit: 'grapheme' }),
  ),
})

/** The pieces `withoutOwnEchoes` keeps, by its definition: every text normalised, then cut. */
function cutByDefinition(texts: readonly string[], own: readonly string[]): string[] {
  let pieces = texts.map(normaliseText)
  for (const echo of own) pieces = pieces.flatMap((piece) => piece.split(echo))
  return pieces.filter((piece) => piece.length > 0)
}

describe('withoutOwnEchoes pieces in the text index', () => {
  it('should cut every text, repeated ones too, as normalising then cutting each would', () => {
    fc.assert(
      fc.property(
        fc.array(mixedText, { maxLength: 4 }),
        fc.array(fc.nat(3), { maxLength: 4 }),
        fc.array(mixedText, { minLength: 1, maxLength: 3 }),
        (distinct, repeats, values) => {
          const texts = [...distinct, ...repeats.flatMap((at) => distinct[at] ?? [])]
          const own = values
            .map(normaliseText)
            .filter((value) => value.length >= FRAGMENT_LENGTH)
            .sort((a, b) => b.length - a.length)
          const args = Object.fromEntries(values.map((value, at) => [`a${at}`, value]))
          const kept = withoutOwnEchoes(texts, args)
          expect(kept.texts).toEqual(own.length === 0 ? texts : cutByDefinition(texts, own))
          expect(kept.pieces).toBe(own.length > 0)
        },
      ),
    )
  })

  it('should give every piece of normalised text the normal form normaliseText gives it', () => {
    fc.assert(
      fc.property(mixedText, mixedText, (text, echo) => {
        const normal = normaliseText(text)
        const cut = normaliseText(echo)
        for (const piece of cut === '' ? [normal] : normal.split(cut))
          expect(normalisePiece(piece)).toBe(normaliseText(piece))
      }),
    )
  })

  it('should index the same texts as normalising each piece again, and find the same', () => {
    fc.assert(
      fc.property(
        fc.array(mixedText, { maxLength: 4 }),
        fc.array(mixedText, { maxLength: 3 }),
        fc.array(mixedText, { maxLength: 4 }),
        (texts, values, queries) => {
          const args = Object.fromEntries(values.map((value, at) => [`a${at}`, value]))
          const kept = withoutOwnEchoes(texts, args)
          const fast = new UntrustedTextIndex()
          fast.add('step', kept.texts, true, kept.pieces)
          const general = new UntrustedTextIndex()
          general.add('step', kept.texts)
          expect(fast.outputsFrom(0)).toEqual(general.outputsFrom(0))
          expect(fast.saturatedAt).toBe(general.saturatedAt)
          for (const query of [...queries, ...texts])
            expect(fast.find(query)).toEqual(general.find(query))
        },
      ),
    )
  })
})
