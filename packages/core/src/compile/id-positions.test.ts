import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { IdPositions, OneIdPosition } from './id-positions.js'

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

describe('OneIdPosition', () => {
  it('should answer as IdPositions of the same one id does', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }), (id, other) => {
        const one = new OneIdPosition(id)
        const general = new IdPositions([id])
        expect([...one]).toEqual([...general])
        expect([...one.keys()]).toEqual([...general.keys()])
        expect([...one.values()]).toEqual([...general.values()])
        expect(one.size).toBe(general.size)
        for (const key of [id, other, `${id}x`, id.slice(1)]) {
          expect(one.get(key)).toBe(general.get(key))
          expect(one.has(key)).toBe(general.has(key))
        }
      }),
      { numRuns: 1_000 },
    )
  })

  it('should find nothing for a key that is not a string', () => {
    const one = new OneIdPosition('s1')
    const general = new IdPositions(['s1'])
    for (const key of [undefined, null, 1, { toString: () => 's1' }] as unknown as string[]) {
      expect(one.get(key)).toBe(general.get(key))
      expect(one.has(key)).toBe(false)
    }
  })
})
