import { describe, expect, it } from 'vitest'
import { matchJsonSchema } from './match-json-schema.js'

const schema = {
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
    const match = matchJsonSchema(schema, value)
    expect(match).toEqual({ success: true, value })
    expect(match.success && match.value).not.toBe(value)
  })

  it('should say where a value does not match', () => {
    expect(matchJsonSchema(schema, { id: 'a', size: -1 })).toMatchObject({
      success: false,
      mismatch: { path: ['size'] },
    })
    expect(matchJsonSchema(schema, { size: 1 })).toMatchObject({
      success: false,
      mismatch: { path: ['id'], message: 'required' },
    })
    expect(matchJsonSchema(schema, { id: 'a', extra: 1 })).toMatchObject({
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
    expect(() => matchJsonSchema({ type: 'string', pattern: '^a' }, 'b')).toThrow(/pattern/)
  })
})
