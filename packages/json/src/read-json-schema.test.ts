import { describe, expect, it } from 'vitest'
import { matchJsonSchema, readJsonSchema } from './read-json-schema.js'

const list = { type: 'array', items: { type: 'string', minLength: 1 } }
const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', pattern: '^[a-z]+$' },
    tags: { default: ['a'], ...list },
    child: { $ref: '#' },
    value: { type: ['string', 'number'] },
  },
  required: ['name'],
  additionalProperties: false,
}

describe('readJsonSchema', () => {
  it('should fill defaults with a fresh copy each time', () => {
    const first = readJsonSchema(schema, { name: 'x' })
    const second = readJsonSchema(schema, { name: 'x' })
    expect(first).toEqual({ name: 'x', tags: ['a'] })
    expect((first as { tags: string[] }).tags).not.toBe((second as { tags: string[] }).tags)
  })

  it('should read references to the root, type lists and records', () => {
    expect(readJsonSchema(schema, { name: 'x', child: { name: 'y', value: 2 } })).toEqual({
      name: 'x',
      tags: ['a'],
      child: { name: 'y', tags: ['a'], value: 2 },
    })
    const record = { type: 'object', propertyNames: { minLength: 1 }, additionalProperties: list }
    expect(readJsonSchema(record, { a: ['b'] })).toEqual({ a: ['b'] })
    expect(readJsonSchema(record, { '': ['b'] })).toBeUndefined()
  })

  it.each([
    ['a missing required property', {}],
    ['an unknown property', { name: 'x', other: 1 }],
    ['a value that misses the pattern', { name: 'X' }],
    ['a value of no listed type', { name: 'x', value: true }],
    ['an explicit undefined', { name: 'x', value: undefined }],
    ['a class instance', Object.assign(new (class Named {})(), { name: 'x' })],
  ])('should decline %s', (_, value) => {
    expect(readJsonSchema(schema, value)).toBeUndefined()
  })

  it('should decline keys that reach a prototype and keywords it does not read', () => {
    const any = { type: 'object' }
    expect(readJsonSchema(any, JSON.parse('{"__proto__": {}}'))).toBeUndefined()
    expect(readJsonSchema(any, { constructor: 1 })).toBeUndefined()
    expect(readJsonSchema({ type: 'string', format: 'uri' }, 'https://a.example')).toBeUndefined()
    expect(readJsonSchema({ $ref: '#/$defs/missing' }, 1)).toBeUndefined()
  })
})

const checked = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    size: { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }] },
  },
  required: ['id'],
  additionalProperties: false,
}

describe('matchJsonSchema', () => {
  it('should answer a copy of a value that matches', () => {
    const value = { id: 'a', size: 3 }
    const match = matchJsonSchema(checked, value)
    expect(match).toEqual({ success: true, value })
    expect(match.success && match.value).not.toBe(value)
  })

  it('should say where a value does not match', () => {
    expect(matchJsonSchema(checked, { id: 'a', size: -1 })).toMatchObject({
      success: false,
      mismatch: { path: ['size'] },
    })
    expect(matchJsonSchema(checked, { size: 1 })).toMatchObject({
      success: false,
      mismatch: { path: ['id'], message: 'required' },
    })
    expect(matchJsonSchema(checked, { id: 'a', extra: 1 })).toMatchObject({
      success: false,
      mismatch: { path: ['extra'] },
    })
  })

  it('should keep a __proto__ key as data, never as a prototype', () => {
    const value = JSON.parse('{"__proto__":{"polluted":true}}')
    const match = matchJsonSchema({ type: 'object', additionalProperties: {} }, value)
    expect(match.success && Object.getPrototypeOf(match.value)).toBe(Object.prototype)
    expect(match.success && Object.hasOwn(match.value as object, '__proto__')).toBe(true)
  })

  it('should refuse a schema keyword it does not enforce', () => {
    expect(() => matchJsonSchema({ type: 'string', format: 'uri' }, 'b')).toThrow(/format/)
  })
})
