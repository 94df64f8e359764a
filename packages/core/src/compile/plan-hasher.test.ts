import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { hashedDependencies } from './build-compiled-plan.js'

describe('hashedDependencies', () => {
  it('should return ids already in ascending order as they are', () => {
    const ids = Object.freeze(['a', 'b', 'c'])
    expect(hashedDependencies(ids)).toBe(ids)
  })

  it('should sort by code unit and drop duplicates', () => {
    expect(hashedDependencies(['s10', 's2', 'S1', 's2'])).toEqual(['S1', 's10', 's2'])
    expect(hashedDependencies(['b', 'a'])).toEqual(['a', 'b'])
    expect(hashedDependencies(['a', 'a'])).toEqual(['a'])
  })

  it('should agree with a Set and the default sort on any ids', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 4 }), { maxLength: 20 }), (ids) => {
        expect(hashedDependencies(ids)).toEqual([...new Set(ids)].sort())
      }),
    )
  })
})
