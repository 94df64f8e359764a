import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { IdPositions } from './id-positions.js'

describe('IdPositions', () => {
  it('should answer as a Map of the ids to their positions does', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ maxLength: 6 }), { maxLength: 60 }),
        fc.string(),
        (ids, other) => {
          const positions = new IdPositions(ids)
          const map = new Map(ids.map((id, position) => [id, position]))
          expect([...positions]).toEqual([...map])
          expect(positions.size).toBe(map.size)
          for (const id of [...ids, other, `${other}x`]) {
            expect(positions.get(id)).toBe(map.get(id))
            expect(positions.has(id)).toBe(map.has(id))
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  it('should find every id of a large plan and no other', () => {
    const ids = Array.from({ length: 5000 }, (_, index) => `s${index}`)
    const positions = new IdPositions(ids)
    expect(ids.every((id, position) => positions.get(id) === position)).toBe(true)
    expect([positions.get('s5000'), positions.get(''), positions.get('s')]).toEqual([
      undefined,
      undefined,
      undefined,
    ])
    expect([...positions.keys()].slice(0, 2)).toEqual(['s0', 's1'])
  })
})
