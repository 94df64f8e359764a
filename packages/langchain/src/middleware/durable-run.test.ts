import { createMemoryGuardStore } from '@plan/core'
import { describe, expect, it } from 'vitest'
import { freshestRunState } from './durable-run.js'

/** A saved run state, reduced to what `freshestRunState` reads. */
function stateOf(revision: number, paused?: Record<string, string>) {
  return { runId: 'run', revision, guard: { calls: 1, ...(paused ? { paused } : {}) } }
}

describe('freshestRunState', () => {
  it('should take the store state when it is newer, else the agent state', async () => {
    const store = createMemoryGuardStore()
    await store.save('run', { revision: 5, state: stateOf(5, { a: 'c1' }) })
    expect(await freshestRunState(store, 'run', stateOf(4))).toEqual(stateOf(5, { a: 'c1' }))
    const written = stateOf(6)
    expect(await freshestRunState(store, 'run', written)).toBe(written)
    expect(await freshestRunState(undefined, 'run', written)).toBe(written)
  })

  it('should keep only the paused calls of the agent state that the store holds too', async () => {
    const store = createMemoryGuardStore()
    const written = stateOf(6, { a: 'c1', b: 'c2', c: 'c3' })
    // No state in the store: no paused call is vouched for.
    expect(await freshestRunState(store, 'run', written)).toEqual(stateOf(6))
    await store.save('run', { revision: 5, state: stateOf(5, { a: 'c1', b: 'other' }) })
    expect(await freshestRunState(store, 'run', written)).toEqual(stateOf(6, { a: 'c1' }))
    // Without a store there is no shared budget to skip, and the agent state is all there is.
    expect(await freshestRunState(undefined, 'run', written)).toBe(written)
  })
})
