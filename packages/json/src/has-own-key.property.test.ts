import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { hasOwnKey } from './has-own-key.js'

const key = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', '0', 'length', 'a'),
  fc.string({ maxLength: 4 }),
)

/** Objects as JSON.parse, a literal or Object.create(null) make them, some keys inherited. */
const objectArb = fc
  .tuple(
    fc.dictionary(key, fc.jsonValue({ maxDepth: 1 })),
    fc.constantFrom('json', 'null', 'child'),
  )
  .map(([entries, kind]) => {
    if (kind === 'json') return JSON.parse(JSON.stringify(entries)) as object
    if (kind === 'null') return Object.assign(Object.create(null) as object, entries)
    return Object.create(entries) as object
  })

describe('hasOwnKey', () => {
  it('should agree with Object.hasOwn, inside a for-in loop and outside it', () => {
    fc.assert(
      fc.property(objectArb, key, (value, probe) => {
        expect(hasOwnKey(value, probe)).toBe(Object.hasOwn(value, probe))
        for (const name in value) expect(hasOwnKey(value, name)).toBe(Object.hasOwn(value, name))
      }),
      { numRuns: 500 },
    )
  })

  it('should agree with Object.hasOwn on arrays and Proxies', () => {
    const target = { a: 1 }
    const proxy = new Proxy(target, {})
    expect(hasOwnKey(proxy, 'a')).toBe(true)
    expect(hasOwnKey(proxy, 'b')).toBe(false)
    expect(hasOwnKey([1], '0')).toBe(Object.hasOwn([1], '0'))
    expect(hasOwnKey([1], 'length')).toBe(Object.hasOwn([1], 'length'))
  })
})
