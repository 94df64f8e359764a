import { describe, expect, it } from 'vitest'
import { type PolicyInput, policySchema } from '../schema/policy-schema.js'
import { createMemoryGuardStore } from './create-memory-guard-store.js'
import type { GuardStore } from './guard-store.js'
import { sharedBudgetReservations } from './shared-budget-reservations.js'
import { finishDurableCall, startDurableCall } from './start-durable-call.js'

function policyWith(shared: NonNullable<PolicyInput['budgets']>['shared']) {
  return policySchema.parse({
    version: 1,
    workspace: { roots: ['/srv/repo'] },
    tools: { run_command: { args: { command: { type: 'command' } } }, echo: {} },
    budgets: { shared },
  })
}

const perTenant = policyWith({
  shell: { per: 'tenant', tools: ['run_command'], maxCalls: 2, windowSeconds: 3600 },
})

function start(store: GuardStore | undefined, tool = 'run_command', tenant = 'acme') {
  return startDurableCall({
    store,
    runId: 'run-1',
    policy: perTenant,
    tool,
    stepId: 's1',
    keys: { tenant },
    saved: () => ({ revision: 1, state: { step: 'running' } }),
    now: () => 7_200_000 + 5_000,
  })
}

describe('sharedBudgetReservations', () => {
  it('should reserve the budgets that count the tool, in the current window', () => {
    expect(
      sharedBudgetReservations(perTenant, 'run_command', { tenant: 'acme' }, 7_205_000),
    ).toEqual({
      success: true,
      reservations: [
        { budget: 'shell', key: 'acme', windowStart: 7200, windowSeconds: 3600, maxCalls: 2 },
      ],
    })
    expect(sharedBudgetReservations(perTenant, 'echo', {}, 0)).toEqual({
      success: true,
      reservations: [],
    })
  })

  it('should fail closed when the run lacks the key a budget is separated by', () => {
    const plan = sharedBudgetReservations(perTenant, 'run_command', { user: 'u1' }, 0)
    expect(plan.success ? 'reserved' : plan.issue.code).toBe('store_failed')
  })
})

describe('startDurableCall', () => {
  it('should save the state before the tool runs', async () => {
    const store = createMemoryGuardStore()
    expect(await start(store)).toEqual([])
    expect(await store.load('run-1')).toEqual({ revision: 1, state: { step: 'running' } })
  })

  it('should deny a call past the shared budget (budget_exhausted), per key', async () => {
    const store = createMemoryGuardStore()
    expect(await start(store)).toEqual([])
    expect(await start(store)).toEqual([])
    expect((await start(store))[0]?.code).toBe('budget_exhausted')
    expect(await start(store, 'run_command', 'globex')).toEqual([])
    expect(await start(store, 'echo')).toEqual([])
  })

  it('should deny a call whose state cannot be saved (store_failed)', async () => {
    const broken: GuardStore = {
      ...createMemoryGuardStore(),
      save: () => Promise.reject(new Error('connection refused')),
    }
    const issues = await start(broken, 'echo')
    expect(issues[0]?.code).toBe('store_failed')
    expect(issues[0]?.message).toContain('connection refused')
  })

  it('should give back the reservation of a call whose save failed, and keep one that ran', async () => {
    const memory = createMemoryGuardStore()
    let saves = 0
    const flaky: GuardStore = {
      ...memory,
      save: (runId, saved) => {
        saves += 1
        return saves === 1
          ? Promise.reject(new Error('connection reset'))
          : memory.save(runId, saved)
      },
    }
    // The first call never started: its count came back, so two calls still fit in the budget.
    expect((await start(flaky))[0]?.code).toBe('store_failed')
    expect(await start(flaky)).toEqual([])
    expect(await start(flaky)).toEqual([])
    expect((await start(flaky))[0]?.code).toBe('budget_exhausted')
  })

  it('should keep the reservation when the store cannot give it back', async () => {
    const memory = createMemoryGuardStore()
    const broken: GuardStore = {
      load: memory.load,
      reserve: memory.reserve,
      save: () => Promise.reject(new Error('down')),
    }
    expect((await start(broken))[0]?.code).toBe('store_failed')
    expect((await start(broken))[0]?.code).toBe('store_failed')
    expect((await start(memory))[0]?.code).toBe('budget_exhausted')
  })

  it('should deny a call counted by a shared budget when there is no store', async () => {
    expect((await start(undefined))[0]?.code).toBe('store_failed')
    expect(await start(undefined, 'echo')).toEqual([])
  })
})

describe('finishDurableCall', () => {
  it('should save the state after the call, and ignore a store that fails', async () => {
    const store = createMemoryGuardStore()
    await finishDurableCall(store, 'run-1', { revision: 2, state: 'done' })
    expect((await store.load('run-1'))?.state).toBe('done')
    const broken: GuardStore = { ...store, save: () => Promise.reject(new Error('down')) }
    await expect(finishDurableCall(broken, 'run-1', { revision: 3, state: 'x' })).resolves.toBe(
      undefined,
    )
  })
})
