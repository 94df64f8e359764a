import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { canonicalJson } from './canonical-json.js'

/** The definition: JSON.stringify of a copy whose keys were inserted in sorted order. */
function sortedCopy(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((item) => sortedCopy(item ?? null))
  const record = value as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(record).sort()) {
    if (record[key] === undefined) continue
    Object.defineProperty(out, key, {
      value: sortedCopy(record[key]),
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return out
}

// Keys that JSON.stringify orders specially (array indices, and the first ones that are not).
const key = fc.oneof(
  fc.string(),
  fc.constantFrom('0', '1', '9', '10', '01', '-1', '1.5', '4294967294', '4294967295', '__proto__'),
  fc.nat().map(String),
)
const value = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.string({ unit: 'binary' }),
    fc.array(fc.option(tie('value'), { nil: undefined })),
    fc.array(fc.tuple(key, fc.option(tie('value'), { nil: undefined }))).map((entries) => {
      const record: Record<string, unknown> = {}
      for (const [name, member] of entries)
        Object.defineProperty(record, name, {
          value: member,
          enumerable: true,
          writable: true,
          configurable: true,
        })
      return record
    }),
  ),
}))

describe('canonicalJson', () => {
  it('should equal JSON.stringify of a copy with keys inserted in sorted order', () => {
    fc.assert(
      fc.property(value.value, (input) => {
        expect(canonicalJson(input)).toBe(JSON.stringify(sortedCopy(input)))
      }),
      { numRuns: 2000 },
    )
  })
})
