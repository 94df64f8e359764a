import { isDeepStrictEqual } from 'node:util'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { copyJson, MAX_JSON_DEPTH, outputToJson, outputToJsonByText } from './json-copy.js'

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

/** Both answers, with the copies' key order and negative zeros made visible. */
function bothWays(value: unknown, maxBytes: number) {
  const direct = outputToJson(value, maxBytes)
  const byText = outputToJsonByText(value, maxBytes)
  const shape = (copy: typeof direct) =>
    copy.ok ? { ok: true, text: JSON.stringify(copy.value), value: copy.value } : copy
  return { direct: shape(direct), byText: shape(byText) }
}

/** An array of `length` with a hole at 0 and 1, 2, … after it. */
function holey(length: number): unknown[] {
  const array: unknown[] = new Array(length)
  for (let index = 1; index < length; index += 1) array[index] = index
  return array
}

/** Values JSON.stringify treats apart: getters, toJSON, instances, holes, NaN, -0, __proto__. */
const awkward = fc.oneof(
  fc.constantFrom(-0, Number.NaN, Number.POSITIVE_INFINITY, undefined, null, '', '\u0000"\\\ud800'),
  fc.constant(Object.assign(JSON.parse('{"__proto__":{"a":1}}'), { b: holey(3) })),
  fc.constant({ toJSON: () => ({ swapped: true }) }),
  fc.constant(Object.assign([1, 2], { toJSON: () => 'array' })),
  fc.constant({
    get late() {
      return 'read'
    },
  }),
  fc.constant(Object.create(null, { a: { value: 1, enumerable: true } })),
  fc.constant(Object.defineProperty({ shown: 1 }, 'hidden', { value: 2, enumerable: false })),
  fc.constant({ [Symbol('s')]: 1, kept: [undefined, () => 1] }),
  fc.constant({ 2: 'b', 1: 'a', z: 0, '-1': 'c' }),
  fc.constant(holey(2)),
)

describe('outputToJson (direct copy)', () => {
  it('should answer as the copy through JSON text does, for any value and size limit', () => {
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.anything({
          withBoxedValues: true,
          withMap: true,
          withSet: true,
          withNullPrototype: true,
          withDate: true,
          withTypedArray: true,
          withSparseArray: true,
          withObjectString: true,
          withBigInt: true,
          withUnicodeString: true,
        }),
        awkward,
        fc.array(tie('node'), { maxLength: 4 }),
        fc.dictionary(fc.string({ maxLength: 4 }), tie('node'), { maxKeys: 4 }),
      ),
    })).node
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 400 }), (input, maxBytes) => {
        const { direct, byText } = bothWays(input, maxBytes)
        expect(isDeepStrictEqual(direct, byText)).toBe(true)
      }),
      { numRuns: 3000 },
    )
  })

  it('should answer as the copy through JSON text does at the depth limit and for cycles', () => {
    for (const levels of [MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1]) {
      const { direct, byText } = bothWays(nested(levels), 1_000_000)
      expect(direct).toEqual(byText)
    }
    const cycle: { self?: unknown } = {}
    cycle.self = cycle
    const { direct, byText } = bothWays(cycle, 1_000_000)
    expect(direct).toEqual(byText)
    expect(direct.ok).toBe(false)
  })

  it('should make members and elements as JSON.parse does past a setter on a prototype', () => {
    const taken: unknown[] = []
    for (const [prototype, key] of [
      [Object.prototype, 'text'],
      [Array.prototype, '0'],
    ] as const) {
      Object.defineProperty(prototype, key, {
        set: (value: unknown) => taken.push(value),
        configurable: true,
      })
      const output = JSON.parse('{"content":[{"type":"text","text":"hello"}]}')
      let answers: ReturnType<typeof bothWays>
      try {
        answers = bothWays(output, 1_000)
      } finally {
        delete (prototype as Record<string, unknown>)[key]
      }
      expect(answers.direct).toEqual(answers.byText)
      expect(answers.direct).toEqual({ ok: true, text: JSON.stringify(output), value: output })
    }
    expect(taken).toEqual([])
  })

  it('should read a getter once and honour a toJSON put on Object.prototype', () => {
    let reads = 0
    const counted = {
      get value() {
        reads += 1
        return 'x'
      },
    }
    expect(outputToJson(counted, 1_000)).toEqual({ ok: true, value: { value: 'x' } })
    expect(reads).toBe(1)
    const prototype = Object.prototype as { toJSON?: () => unknown }
    prototype.toJSON = () => 'polluted'
    try {
      expect(outputToJson({ a: 1 }, 1_000)).toEqual(outputToJsonByText({ a: 1 }, 1_000))
      expect(outputToJson({ a: 1 }, 1_000)).toEqual({ ok: true, value: 'polluted' })
    } finally {
      delete prototype.toJSON
    }
  })
})
