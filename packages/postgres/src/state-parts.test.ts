import { describe, expect, it } from 'vitest'
import { chunksOf } from './state-parts.js'

describe('chunksOf', () => {
  it('should cut a text into pieces of at most the size that join back to it', () => {
    const text = 'abcdefghij'.repeat(10)
    const pieces = [...chunksOf(text, 16)]
    expect(pieces.map((piece) => piece.length)).toEqual([16, 16, 16, 16, 16, 16, 4])
    expect(pieces.join('')).toBe(text)
    expect([...chunksOf('', 16)]).toEqual([])
    expect([...chunksOf('short', 16)]).toEqual(['short'])
  })

  it('should never cut between the two halves of a surrogate pair', () => {
    // 'x' then pairs: every cut at an odd offset would fall inside a pair.
    const text = `x${'😀'.repeat(20)}`
    const pieces = [...chunksOf(text, 4)]
    expect(pieces.join('')).toBe(text)
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(4)
      // A lone half would not survive UTF-8: each piece encodes and decodes to itself.
      expect(Buffer.from(piece, 'utf8').toString('utf8')).toBe(piece)
    }
  })
})
