import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isPlainObject } from './is-plain-object.js'

const key = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', '$ref', 'toString', '0'),
  fc.string({ maxLength: 4 }),
)

/** JSON texts whose keys include `__proto__` and `constructor`, duplicates too. */
const jsonText: fc.Arbitrary<string> = fc.letrec<{ text: string }>((tie) => ({
  text: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.jsonValue({ maxDepth: 0 }).map((value) => JSON.stringify(value) ?? 'null'),
    fc.array(tie('text'), { maxLength: 3 }).map((items) => `[${items.join(',')}]`),
    fc
      .array(fc.tuple(key, tie('text')), { maxLength: 4 })
      .map(
        (entries) =>
          `{${entries.map(([name, value]) => `${JSON.stringify(name)}:${value}`).join(',')}}`,
      ),
  ),
})).text

function everyValue(value: unknown, visit: (value: unknown) => void): void {
  visit(value)
  if (typeof value !== 'object' || value === null) return
  for (const name of Object.keys(value)) everyValue((value as Record<string, unknown>)[name], visit)
}

describe('isPlainObject', () => {
  it('should judge every value inside what JSON.parse returned the same with parsed set', () => {
    fc.assert(
      fc.property(jsonText, (text) => {
        everyValue(JSON.parse(text), (value) => {
          expect(isPlainObject(value, true)).toBe(isPlainObject(value))
        })
      }),
      { numRuns: 1000 },
    )
  })

  it('should read the prototype unless parsed is set', () => {
    class Step {}
    expect(isPlainObject({})).toBe(true)
    expect(isPlainObject(Object.create(null))).toBe(true)
    expect(isPlainObject(new Step())).toBe(false)
    expect(isPlainObject(new Map())).toBe(false)
    expect(isPlainObject(Object.create({}))).toBe(false)
    for (const value of [[], null, undefined, 'x', 1, true]) {
      expect(isPlainObject(value)).toBe(false)
      expect(isPlainObject(value, true)).toBe(false)
    }
  })
})
