import { createMemoryGuardStore, PlanError } from '@plan/core'
import { describe, expect, it } from 'vitest'
import { freshestRunState } from './durable-run.js'

/** A saved run state, reduced to what `freshestRunState` reads. */
function stateOf(revision: number, calls = 1) {
  return { runId: 'run', revision, guard: { calls } }
}

/** The code of the `PlanError` that `action` rejects with. */
async function codeOf(action: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await action()
  } catch (error) {
    return PlanError.isInstance(error) ? error.code : `not a PlanError: ${String(error)}`
  }
  return undefined
}

describe('freshestRunState', () => {
  it("should take the store's state whenever the store has one, and the agent state without a store", async () => {
    const store = createMemoryGuardStore()
    await store.save('run', { revision: 5, state: stateOf(5, 3) })
    expect(await freshestRunState(store, 'run', stateOf(4))).toEqual(stateOf(5, 3))
    // The same revision with other counts: only the store's are taken.
    const forged = stateOf(5, 0)
    expect(await freshestRunState(store, 'run', forged)).toEqual(stateOf(5, 3))
    expect(await freshestRunState(undefined, 'run', forged)).toBe(forged)
  })

  it('should refuse an agent state newer than the store, or for a run the store has none of', async () => {
    const store = createMemoryGuardStore()
    expect(await codeOf(() => freshestRunState(store, 'run', stateOf(6)))).toBe('state_corrupt')
    await store.save('run', { revision: 5, state: stateOf(5) })
    expect(await codeOf(() => freshestRunState(store, 'run', stateOf(6)))).toBe('state_corrupt')
  })
})
