import { createMemoryGuardStore } from '@plan/core'
import { describe, expect, it } from 'vitest'
import { reversingStore } from '../test-utils/reversing-store.js'
import { orderedStore, RunWrites } from './run-writes.js'

const state = (revision: number) => ({ revision, state: { revision } })

describe('orderedStore', () => {
  it('should let conditional saves issued together succeed in the order they were issued', async () => {
    const memory = createMemoryGuardStore()
    await memory.save('run', state(1))
    const store = orderedStore(reversingStore(memory), new RunWrites())
    const saveIf = store.saveIfRevision?.bind(store)
    if (saveIf === undefined) throw new Error('the memory store saves conditionally')
    const results = await Promise.all([
      store.save('run', state(2)),
      saveIf('run', state(3), 2),
      store.save('run', state(4)),
      saveIf('run', state(5), 4),
      saveIf('run', state(6), 5),
      store.save('run', state(7)),
    ])
    expect(results).toEqual([undefined, true, undefined, true, true, undefined])
    expect(await memory.load('run')).toEqual(state(7))
  })

  it('should still refuse a conditional save when another writer moved the store on', async () => {
    const memory = createMemoryGuardStore()
    await memory.save('run', state(1))
    const store = orderedStore(memory, new RunWrites())
    const issued = store.saveIfRevision?.('run', state(2), 1)
    // Another process writes before this one's save reaches the store.
    await memory.save('run', state(5))
    expect(await issued).toBe(false)
    expect(await store.saveIfRevision?.('run', state(6), 1)).toBe(false)
    expect(await memory.load('run')).toEqual(state(5))
  })

  it('should lose conditional saves issued together to a reversing store without ordering', async () => {
    const memory = createMemoryGuardStore()
    await memory.save('run', state(1))
    const store = reversingStore(memory)
    const results = await Promise.all([
      store.saveIfRevision?.('run', state(2), 1),
      store.saveIfRevision?.('run', state(3), 2),
    ])
    expect(results).toEqual([true, false])
  })
})
