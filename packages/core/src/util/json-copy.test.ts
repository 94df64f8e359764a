import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { copyJson, MAX_JSON_DEPTH, outputToJson } from './json-copy.js'

function nested(levels: number): unknown {
  let value: unknown = 'leaf'
  for (let level = 0; level < levels; level += 1) value = level % 2 === 0 ? [value] : { value }
  return value
}

describe('outputToJson', () => {
  it('should give what a JSON copy of the output as JSON text gives', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copied = copyJson(JSON.parse(JSON.stringify(value) ?? 'null'))
        expect(outputToJson(value, 1_000_000)).toEqual(copied)
      }),
      { numRuns: 500 },
    )
  })

  it('should take output nested to the limit and refuse one level deeper', () => {
    expect(outputToJson(nested(MAX_JSON_DEPTH), 1_000_000)).toEqual({
      ok: true,
      value: nested(MAX_JSON_DEPTH),
    })
    expect(outputToJson(nested(MAX_JSON_DEPTH + 1), 1_000_000)).toEqual({
      ok: false,
      reason: `the output is not JSON (nesting deeper than ${MAX_JSON_DEPTH} levels)`,
    })
    expect(copyJson(nested(MAX_JSON_DEPTH + 1)).ok).toBe(false)
  })

  it('should keep a __proto__ member as data and honour toJSON, undefined and the size limit', () => {
    const result = outputToJson(JSON.parse('{"__proto__":{"polluted":true},"a":1}'), 1_000)
    expect(result.ok && Object.getPrototypeOf(result.value)).toBe(Object.prototype)
    expect(result.ok && Object.hasOwn(result.value as object, '__proto__')).toBe(true)
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined()
    expect(outputToJson({ when: new Date(0), gone: undefined }, 1_000)).toEqual({
      ok: true,
      value: { when: '1970-01-01T00:00:00.000Z' },
    })
    expect(outputToJson(undefined, 1_000)).toEqual({ ok: true, value: null })
    expect(outputToJson('x'.repeat(20), 10).ok).toBe(false)
    expect(outputToJson({ big: 10n }, 1_000).ok).toBe(false)
  })
})
