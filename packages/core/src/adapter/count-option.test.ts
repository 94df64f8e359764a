import { PlanError } from '@plan/shell/common'
import { describe, expect, it } from 'vitest'
import { countOption } from './count-option.js'

describe('countOption', () => {
  it('should give the fallback for a left-out option and the value for a count', () => {
    expect(countOption('maxSessions', undefined, 64)).toBe(64)
    expect(countOption('maxSessions', 1, 64)).toBe(1)
    expect(countOption('maxSessions', 100_000, 64)).toBe(100_000)
  })

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '3', null])(
    'should refuse %s with an invalid_configuration error that names the option',
    (value) => {
      const error = (() => {
        try {
          countOption('maxLiveRuns', value, 10)
        } catch (caught) {
          return caught
        }
        return undefined
      })()

      expect(error).toBeInstanceOf(PlanError)
      expect((error as PlanError).code).toBe('invalid_configuration')
      expect((error as PlanError).message).toContain('maxLiveRuns')
    },
  )
})
