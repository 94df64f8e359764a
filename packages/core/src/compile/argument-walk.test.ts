import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { FORBIDDEN_KEYS, isForbiddenKey } from './argument-walk.js'

describe('isForbiddenKey', () => {
  it('should answer as FORBIDDEN_KEYS.has for any key', () => {
    for (const key of [...FORBIDDEN_KEYS, 'proto', '__proto', 'Constructor', ''])
      expect(isForbiddenKey(key)).toBe(FORBIDDEN_KEYS.has(key))
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (key) => {
        expect(isForbiddenKey(key)).toBe(FORBIDDEN_KEYS.has(key))
      }),
    )
  })
})
