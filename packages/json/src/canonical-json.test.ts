import { describe, expect, it } from 'vitest'
import { canonicalJson } from './canonical-json.js'

describe('canonicalJson', () => {
  it('should give equal text for equal values whatever their key order', () => {
    expect(canonicalJson({ b: [1, { y: 2, x: 1 }], a: 'z' })).toBe(
      '{"a":"z","b":[1,{"x":1,"y":2}]}',
    )
    expect(canonicalJson({ a: 1, b: undefined })).toBe(canonicalJson({ a: 1 }))
  })

  it('should keep a __proto__ key as a plain member', () => {
    expect(canonicalJson(JSON.parse('{"__proto__":{"x":1}}'))).toBe('{"__proto__":{"x":1}}')
  })

  it.each([
    ['a function', () => 1],
    ['a symbol', Symbol('s')],
    ['a BigInt', 1n],
    ['NaN', Number.NaN],
    ['a class instance', new Date(0)],
    ['a nested function', { a: [() => 1] }],
  ])('should throw for %s instead of hashing it', (_name, value) => {
    expect(() => canonicalJson(value)).toThrow(TypeError)
  })

  it('should ignore a toJSON put on Object.prototype, as on any other inherited key', () => {
    const expected = canonicalJson({ a: [1], b: { c: 'd' } })
    const prototype = Object.prototype as { toJSON?: () => string }
    prototype.toJSON = () => 'replaced'
    try {
      expect(canonicalJson({ a: [1], b: { c: 'd' } })).toBe(expected)
    } finally {
      delete prototype.toJSON
    }
  })

  it('should throw for a cycle', () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(() => canonicalJson(cyclic)).toThrow(RangeError)
  })
})
