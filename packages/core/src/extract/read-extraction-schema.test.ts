import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import EXTRACTION_JSON_SCHEMA from './extraction-schema.generated.json' with { type: 'json' }
import { extractionSchema } from './extraction-schema.js'
import { readExtractionSchema } from './read-extraction-schema.js'

describe('EXTRACTION_JSON_SCHEMA', () => {
  it('should be the JSON Schema of extractionSchema (run scripts/write-json-schemas.mjs when not)', () => {
    expect(EXTRACTION_JSON_SCHEMA).toEqual(
      z.toJSONSchema(extractionSchema, { io: 'input', reused: 'ref' }),
    )
  })
})

describe('readExtractionSchema', () => {
  it.each([
    [{ type: 'enum', values: ['a', 1, true] }],
    [{ type: 'number', integer: true, minimum: 0 }],
    [{ type: 'boolean' }],
    [{ type: 'string', pattern: '[a-z]+' }],
    [{ type: 'path', within: ['src/**'] }],
    [{ type: 'array', items: { type: 'string', pattern: 'x', maxLength: 8 } }],
  ])('should read %j as extractionSchema does, defaults applied', (input) => {
    expect(readExtractionSchema(input)).toEqual(extractionSchema.parse(input))
  })

  it.each([
    ['a nested array', { type: 'array', items: { type: 'array', items: { type: 'boolean' } } }],
    ['an unknown key', { type: 'boolean', extra: 1 }],
    ['an empty enum', { type: 'enum', values: [] }],
    ['a free string', { type: 'string' }],
    ['a long maxLength', { type: 'string', pattern: 'x', maxLength: 2000 }],
  ])('should refuse %s, as extractionSchema does', (_, input) => {
    expect(readExtractionSchema(input)).toBeUndefined()
    expect(extractionSchema.safeParse(input).success).toBe(false)
  })

  it('should refuse a pattern that is not a regular expression, which zod lets through', () => {
    expect(readExtractionSchema({ type: 'string', pattern: '(' })).toBeUndefined()
    expect(readExtractionSchema({ type: 'array', items: { type: 'string', pattern: '[' } })).toBe(
      undefined,
    )
  })

  it('should agree with extractionSchema on generated schemas', () => {
    // Plan arguments are JSON: no undefined.
    const junk = fc.constantFrom(null, '', -1, 0, 1.5, 300, 2000, [], {}, 'x')
    const maybe = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: valid }, junk)
    const scalar = fc.oneof(
      fc.record({
        type: fc.constant('enum'),
        values: maybe(
          fc.array(fc.oneof(fc.string(), fc.integer(), fc.boolean()), { maxLength: 3 }),
        ),
      }),
      fc.record(
        { type: fc.constant('number'), integer: maybe(fc.boolean()), minimum: maybe(fc.integer()) },
        { requiredKeys: ['type'] },
      ),
      fc.record(
        {
          type: fc.constant('string'),
          pattern: maybe(fc.constantFrom('a+', 'x')),
          maxLength: maybe(fc.integer({ min: 0, max: 1100 })),
        },
        { requiredKeys: ['type'] },
      ),
      fc.record(
        {
          type: fc.constantFrom('boolean', 'path', 'other'),
          within: maybe(fc.array(fc.constantFrom('src/**', ''), { maxLength: 2 })),
        },
        { requiredKeys: ['type'] },
      ),
    )
    const schema = fc.oneof(
      scalar,
      fc.record(
        {
          type: fc.constant('array'),
          items: maybe(scalar),
          maxItems: maybe(fc.integer({ min: -1, max: 300 })),
        },
        { requiredKeys: ['type', 'items'] },
      ),
    )
    let read = 0
    fc.assert(
      fc.property(schema, (input) => {
        const slow = extractionSchema.safeParse(input)
        const fast = readExtractionSchema(input)
        expect(fast).toEqual(slow.success ? slow.data : undefined)
        if (fast !== undefined) read += 1
      }),
      { numRuns: 1000, seed: 7 },
    )
    expect(read).toBeGreaterThan(100)
  })
})
