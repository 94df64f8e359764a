import canonicalize from 'canonicalize'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { rfc8785Json } from './rfc8785-json.js'

describe('rfc8785Json', () => {
  it('should give the text of an independent RFC 8785 implementation for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(rfc8785Json(value)).toBe(canonicalize(value))
      }),
      { numRuns: 500 },
    )
  })

  it('should sort every key by UTF-16 code units, integer-like keys included', () => {
    expect(rfc8785Json({ b: 1, 10: 'x', 2: 'y', a: [{ z: null, é: true }], '\u{1F600}': 0 })).toBe(
      '{"10":"x","2":"y","a":[{"z":null,"é":true}],"b":1,"\u{1F600}":0}',
    )
  })

  it('should write numbers as ECMAScript does and refuse what is not JSON', () => {
    expect(rfc8785Json([1e21, -0, 0.1, 5e-7, 100])).toBe('[1e+21,0,0.1,5e-7,100]')
    expect(() => rfc8785Json({ a: Number.NaN })).toThrow(TypeError)
    expect(() => rfc8785Json({ a: 1n })).toThrow(TypeError)
    expect(() => rfc8785Json(new Date(0))).toThrow(TypeError)
  })
})
