import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { hashedDependenciesInto } from './plan-hasher.js'

describe('hashedDependenciesInto', () => {
  it('should sort by code unit and drop duplicates', () => {
    expect(hashedDependenciesInto(['s10', 's2', 'S1', 's2'], [])).toEqual(['S1', 's10', 's2'])
    expect(hashedDependenciesInto(['b', 'a'], [])).toEqual(['a', 'b'])
    expect(hashedDependenciesInto(['a', 'a'], [])).toEqual(['a'])
    expect(hashedDependenciesInto([], [])).toEqual([])
  })

  it('should write over what the array held before, longer or shorter', () => {
    const into = ['z', 'y', 'x', 'w']
    expect(hashedDependenciesInto(['b', 'a'], into)).toBe(into)
    expect(into).toEqual(['a', 'b'])
    expect(hashedDependenciesInto(['c', 'b', 'a'], into)).toEqual(['a', 'b', 'c'])
  })

  it('should agree with a Set and the default sort on any ids, whatever the array held', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 4 }), { maxLength: 20 }),
        fc.array(fc.string({ maxLength: 4 }), { maxLength: 20 }),
        (ids, before) => {
          const frozen = Object.freeze([...ids])
          const into = hashedDependenciesInto(frozen, [...before])
          expect(into).toEqual([...new Set(ids)].sort())
          expect(Object.isFrozen(into)).toBe(false)
          expect(frozen).toEqual(ids)
        },
      ),
    )
  })
})
