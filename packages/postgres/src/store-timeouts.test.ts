import { afterEach, describe, expect, it, vi } from 'vitest'
import { resolveTimeouts } from './store-timeout-options.js'
import { poolConfig, withDeadline, withProgressDeadline } from './store-timeouts.js'

describe('resolveTimeouts', () => {
  it('should give every timeout its default, and keep the ones given', () => {
    expect(resolveTimeouts()).toEqual({
      connectMs: 5_000,
      statementMs: 5_000,
      lockMs: 2_000,
      callMs: 15_000,
    })
    expect(resolveTimeouts({ lockMs: 200, callMs: 1_000 })).toEqual({
      connectMs: 5_000,
      statementMs: 5_000,
      lockMs: 200,
      callMs: 1_000,
    })
  })

  it('should refuse a timeout that is not a positive whole number of milliseconds', () => {
    for (const value of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => resolveTimeouts({ statementMs: value })).toThrow(RangeError)
    }
  })
})

describe('poolConfig', () => {
  it('should make the server and the driver keep to the timeouts', () => {
    const timeouts = { connectMs: 100, statementMs: 200, lockMs: 300, callMs: 400 }
    expect(poolConfig('postgres://db', timeouts)).toMatchObject({
      connectionString: 'postgres://db',
      connectionTimeoutMillis: 100,
      statement_timeout: 200,
      lock_timeout: 300,
      query_timeout: 1_200,
      idle_in_transaction_session_timeout: 400,
      keepAlive: true,
    })
  })
})

describe('withDeadline', () => {
  it('should reject once the time passed, and pass on a result that came in time', async () => {
    const never = new Promise<never>(() => undefined)
    await expect(withDeadline(never, 10, 'a save')).rejects.toThrow(
      'PostgreSQL did not answer a save within 10 ms',
    )
    expect(await withDeadline(Promise.resolve(7), 1_000, 'a load')).toBe(7)
  })
})

describe('withProgressDeadline', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  const steps = (count: number, ms: number) => async (progress: () => void) => {
    for (let step = 0; step < count; step += 1) {
      await new Promise((resolve) => setTimeout(resolve, ms))
      progress()
    }
    return count
  }

  it('should let work that makes progress within each deadline take longer in all', async () => {
    vi.useFakeTimers()
    const done = withProgressDeadline(steps(10, 80), 100, 'a save')
    await vi.advanceTimersByTimeAsync(800)
    expect(await done).toBe(10)
  })

  it('should reject once the time passed without progress', async () => {
    vi.useFakeTimers()
    const stalled = withProgressDeadline(steps(3, 150), 100, 'a load')
    const outcome = stalled.catch((error: unknown) => error)
    await vi.advanceTimersByTimeAsync(100)
    expect(await outcome).toEqual(new Error('PostgreSQL did not answer a load within 100 ms'))
  })
})
