import { isRecord } from '@plan/shell/common'
import { describe, expect, it } from 'vitest'

describe('isRecord', () => {
  it('should accept objects and refuse arrays, null and primitives', () => {
    expect([{}, Object.create(null), new Map()].map(isRecord)).toEqual([true, true, true])
    expect([[], null, undefined, 'text', 1].map(isRecord)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ])
  })
})
