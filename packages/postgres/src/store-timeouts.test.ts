import { describe, expect, it } from 'vitest'
import { resolveTimeouts } from './store-timeout-options.js'
import { poolConfig, withDeadline } from './store-timeouts.js'

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
