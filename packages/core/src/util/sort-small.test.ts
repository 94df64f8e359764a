import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { sortSmall } from './sort-small.js'

describe('sortSmall', () => {
  it('should order strings exactly as Array.prototype.sort does, in place', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'grapheme-composite' }), { maxLength: 20 }),
        (values) => {
          const copy = [...values]
          expect(sortSmall(copy)).toBe(copy)
          expect(copy).toEqual([...values].sort())
        },
      ),
      { numRuns: 500, seed: 3 },
    )
  })

  it('should order by UTF-16 code units, not by locale', () => {
    expect(sortSmall(['b', 'B', 'a', '\u{1F600}', '\uFFFF'])).toEqual([
      'B',
      'a',
      'b',
      '\u{1F600}',
      '\uFFFF',
    ])
  })
})
