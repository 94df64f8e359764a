import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PositionMap } from './position-map.js'

function placed(ids: string[]): PositionMap<number> {
  const map = new PositionMap<number>()
  map.place(ids, new Map(ids.map((id, position) => [id, position])))
  return map
}

describe('PositionMap', () => {
  it('should keep values of the plan steps and list them in plan order', () => {
    const map = placed(['a', 'b', 'c', 'd'])
    map.set('c', 3).set('a', 1).set('d', 4)
    expect(map.delete('a')).toBe(true)
    expect(map.delete('a')).toBe(false)
    map.set('b', 2).set('d', 5)
    expect([...map]).toEqual([
      ['b', 2],
      ['c', 3],
      ['d', 5],
    ])
    expect(map.size).toBe(3)
    expect(map.get('a')).toBeUndefined()
    expect(map.has('c')).toBe(true)
  })

  it('should refuse an id of no step of the plan, and empty itself for a new plan', () => {
    const map = placed(['a'])
    expect(() => map.set('z', 1)).toThrow('"z" is no step of the plan')
    expect(map.delete('z')).toBe(false)
    map.set('a', 1)
    map.place(['b'], new Map([['b', 0]]))
    expect(map.size).toBe(0)
    expect(map.get('a')).toBeUndefined()
  })

  it('should hold what a Map holds after any sets and deletes, in plan order', () => {
    const ids = Array.from({ length: 12 }, (_, index) => `s${index}`)
    const operation = fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 11 }), fc.nat())
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 80 }), (operations) => {
        const map = placed(ids)
        const model = new Map<string, number>()
        for (const [isSet, at, value] of operations) {
          const id = ids[at] ?? 's0'
          if (isSet) {
            map.set(id, value)
            model.set(id, value)
          } else expect(map.delete(id)).toBe(model.delete(id))
        }
        const expected = ids.flatMap((id) => (model.has(id) ? [[id, model.get(id)]] : []))
        expect([...map]).toEqual(expected)
        expect(map.size).toBe(model.size)
      }),
    )
  })
})
