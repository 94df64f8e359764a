import { describe, expect, it } from 'vitest'
import { unsetSlots } from './unset-slots.js'

describe('unsetSlots', () => {
  it('should give own undefined slots, no holes, at every length', () => {
    for (const length of [0, 1, 2, 16, 17, 1000]) {
      const slots = unsetSlots<string>(length)
      expect(slots).toHaveLength(length)
      expect(slots.every((slot, index) => slot === undefined && Object.hasOwn(slots, index))).toBe(
        true,
      )
      expect(Object.keys(slots)).toHaveLength(length)
    }
  })
})
