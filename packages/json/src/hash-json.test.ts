import { describe, expect, it } from 'vitest'
import { hashJson, hashJsonOrNull } from './hash-json.js'

describe('hashJson', () => {
  it('should give equal hashes for equal values whatever their key order', () => {
    expect(hashJson({ a: 1, b: 2 })).toBe(hashJson({ b: 2, a: 1 }))
    expect(hashJson({ a: 1 })).toBe(
      '015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862',
    )
  })
})

describe('hashJsonOrNull', () => {
  it('should give null for a value that has no canonical JSON', () => {
    expect(hashJsonOrNull({ a: 1n })).toBeNull()
    expect(hashJsonOrNull({ a: 1 })).toBe(hashJson({ a: 1 }))
  })
})
