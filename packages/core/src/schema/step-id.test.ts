import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { matchesStepIdPattern, STEP_ID_PATTERN } from './step-id.js'

describe('matchesStepIdPattern', () => {
  it('should agree with STEP_ID_PATTERN on any string', () => {
    const text = fc.oneof(
      fc.string(),
      fc.string({
        unit: fc.constantFrom('a', 'Z', '0', '_', '-', '.', ' ', '`', '{', '@', '[', '/', ':'),
      }),
      fc.string({ unit: 'grapheme' }),
    )
    fc.assert(
      fc.property(text, (value) => {
        expect(matchesStepIdPattern(value)).toBe(STEP_ID_PATTERN.test(value))
      }),
      { numRuns: 2_000 },
    )
  })

  it('should accept letters, digits, "_" and "-" and refuse anything else', () => {
    expect(matchesStepIdPattern('read_Config-2')).toBe(true)
    for (const value of ['', 'a.b', 'a b', 'ä', 'a\n', '@', '[', '`', '{'])
      expect(matchesStepIdPattern(value), value).toBe(false)
  })
})
