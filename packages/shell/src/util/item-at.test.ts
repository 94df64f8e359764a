import { describe, expect, it } from 'vitest'
import { int32At, itemAt, numberAt, stringAt, valueAt } from './item-at.js'

describe('itemAt', () => {
  it('should read an item in range and throw a RangeError past the end or at a hole', () => {
    expect(itemAt([{ id: 'a' }], 0)).toEqual({ id: 'a' })
    expect(int32At(Int32Array.of(7, 8), 1)).toBe(8)
    expect(numberAt([0], 0)).toBe(0)
    expect(stringAt(['', 'b'], 0)).toBe('')
    expect(() => int32At(new Int32Array(2), 2)).toThrow(RangeError)
    expect(() => numberAt([1], -1)).toThrow(RangeError)
    expect(() => stringAt(new Array<string>(3), 1)).toThrow(RangeError)
    expect(() => itemAt([], 0)).toThrow(RangeError)
  })
})

describe('valueAt', () => {
  it('should read a present value, falsy ones too, and throw a RangeError for a missing key', () => {
    expect(valueAt({ a: 0, b: null }, 'a')).toBe(0)
    expect(valueAt({ a: 0, b: null }, 'b')).toBeNull()
    expect(() => valueAt<number>({ a: 1 }, 'c')).toThrow(RangeError)
  })
})
