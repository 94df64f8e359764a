import { describe, expect, it } from 'vitest'
import { createMemoryGuardStore } from './create-memory-guard-store.js'

const reservation = { budget: 'shell', key: 'acme', windowStart: 0, maxCalls: 2 }

describe('createMemoryGuardStore', () => {
  it('should keep the state with the highest revision', async () => {
    const store = createMemoryGuardStore()
    await store.save('run', { revision: 2, state: { n: 2 } })
    await store.save('run', { revision: 1, state: { n: 1 } })
    expect(await store.load('run')).toEqual({ revision: 2, state: { n: 2 } })
    await store.save('run', { revision: 3, state: { n: 3 } })
    expect(await store.load('run')).toEqual({ revision: 3, state: { n: 3 } })
    expect(await store.load('other')).toBeUndefined()
  })

  it('should let one of two writers that loaded the same revision save, and refuse the other', async () => {
    const store = createMemoryGuardStore()
    await store.save('run', { revision: 1, state: { n: 1 } })
    const first = { id: 'first', loadedRevision: 1 }
    const second = { id: 'second', loadedRevision: 1 }
    await store.save('run', { revision: 2, state: { by: 'first' }, writer: first })
    await expect(
      store.save('run', { revision: 2, state: { by: 'second' }, writer: second }),
    ).rejects.toMatchObject({ code: 'store_failed' })
    // The loser stays refused at any revision; the winner's late write is ignored, not refused.
    await expect(
      store.save('run', { revision: 9, state: { by: 'second' }, writer: second }),
    ).rejects.toMatchObject({ code: 'store_failed' })
    await store.save('run', { revision: 4, state: { by: 'first', n: 4 }, writer: first })
    await store.save('run', { revision: 3, state: { by: 'first', n: 3 }, writer: first })
    expect(await store.load('run')).toEqual({ revision: 4, state: { by: 'first', n: 4 } })
  })

  it('should let a writer that resumed from the latest state take the run over', async () => {
    const store = createMemoryGuardStore()
    const stale = { id: 'stale', loadedRevision: 0 }
    await store.save('run', { revision: 1, state: { by: 'stale' }, writer: stale })
    const resumed = { id: 'resumed', loadedRevision: 1 }
    await store.save('run', { revision: 2, state: { by: 'resumed' }, writer: resumed })
    await expect(
      store.save('run', { revision: 3, state: { by: 'stale' }, writer: stale }),
    ).rejects.toMatchObject({ code: 'store_failed' })
    expect(await store.load('run')).toEqual({ revision: 2, state: { by: 'resumed' } })
  })

  it('should count calls up to maxCalls and refuse the next', async () => {
    const store = createMemoryGuardStore()
    const results = await Promise.all([1, 2, 3].map(() => store.reserve([reservation])))
    expect(results.filter((result) => result.reserved)).toHaveLength(2)
    expect(results[2]).toEqual({ reserved: false, reservation, used: 2 })
  })

  it('should count all reservations of a call or none', async () => {
    const store = createMemoryGuardStore()
    const other = { ...reservation, budget: 'all', maxCalls: 1 }
    expect(await store.reserve([reservation, other])).toEqual({ reserved: true })
    expect((await store.reserve([reservation, other])).reserved).toBe(false)
    // The refused call did not count against `shell`: one call of it is still left.
    expect(await store.reserve([reservation])).toEqual({ reserved: true })
  })

  it('should give back a released reservation, never below zero', async () => {
    const store = createMemoryGuardStore()
    const one = { ...reservation, maxCalls: 1 }
    expect((await store.reserve([one])).reserved).toBe(true)
    await store.release?.([one])
    await store.release?.([one])
    expect((await store.reserve([one])).reserved).toBe(true)
    expect((await store.reserve([one])).reserved).toBe(false)
  })

  it('should forget a window that ended a window ago, and keep the one before', async () => {
    const store = createMemoryGuardStore()
    const hour = { ...reservation, maxCalls: 1, windowSeconds: 3600 }
    expect((await store.reserve([{ ...hour, windowStart: 0 }])).reserved).toBe(true)
    expect((await store.reserve([{ ...hour, windowStart: 3600 }])).reserved).toBe(true)
    // A process whose clock is behind still finds the last window full.
    expect((await store.reserve([{ ...hour, windowStart: 0 }])).reserved).toBe(false)
    expect((await store.reserve([{ ...hour, windowStart: 7200 }])).reserved).toBe(true)
    // Window 0 ended more than a window ago: its count is gone.
    expect((await store.reserve([{ ...hour, windowStart: 0 }])).reserved).toBe(true)
  })

  it('should keep windows and keys apart', async () => {
    const store = createMemoryGuardStore()
    const one = { ...reservation, maxCalls: 1 }
    expect((await store.reserve([one])).reserved).toBe(true)
    expect((await store.reserve([{ ...one, key: 'globex' }])).reserved).toBe(true)
    expect((await store.reserve([{ ...one, windowStart: 3600 }])).reserved).toBe(true)
    expect((await store.reserve([one])).reserved).toBe(false)
  })
})
