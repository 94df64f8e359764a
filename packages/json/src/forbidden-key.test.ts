import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isForbiddenKey } from './forbidden-key.js'

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype'])

describe('isForbiddenKey', () => {
  it('should answer as membership of the three prototype-reaching keys, for any key', () => {
    for (const key of [...FORBIDDEN, 'proto', '__proto', 'Constructor', ''])
      expect(isForbiddenKey(key)).toBe(FORBIDDEN.has(key))
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (key) => {
        expect(isForbiddenKey(key)).toBe(FORBIDDEN.has(key))
      }),
    )
  })
})
