import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createMemoryGuardStore,
  createSignedGuardStore,
  type GuardStore,
  PlanError,
  type PlanGuardState,
} from '@plan/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMcpCallGuard } from './create-mcp-call-guard.js'

describe('createMcpCallGuard with a guard store', () => {
  let root: string
  const policy = () => ({
    version: 1 as const,
    workspace: { roots: [root] },
    tools: { read: { args: { path: { type: 'path' as const } } } },
  })

  beforeAll(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'plan-mcp-durable-')))
    await writeFile(join(root, 'a.txt'), 'a\n')
  })

  afterAll(async () => {
    await rm(root, { recursive: true, force: true })
  })

  /** A session that forwarded a call and died before the answer: what its store holds. */
  async function crashedStore(): Promise<GuardStore> {
    const store = createMemoryGuardStore()
    const first = await createMcpCallGuard({ policy: policy(), store, runId: 'run-1' })
    const call = await first.authorize('read', { path: 'a.txt' })
    expect(call.allowed).toBe(true)
    const saved = (await store.load('run-1'))?.state as PlanGuardState
    expect(Object.values(saved.status)).toEqual(['running'])
    expect(saved.calls).toBe(1)
    return store
  }

  it('should refuse the interrupted call on resume, and forward it again only when approved', async () => {
    for (const retry of [false, true]) {
      const store = await crashedStore()
      const resumed = await createMcpCallGuard({
        policy: policy(),
        store,
        runId: 'run-1',
        retryInterrupted: () => retry,
      })
      const again = await resumed.authorize('read', { path: 'a.txt' })
      expect(again.allowed ? 'allowed' : again.issues[0]?.code).toBe(
        retry ? 'allowed' : 'interrupted_call',
      )
      expect(resumed.guard.snapshot().calls).toBe(retry ? 2 : 1)
    }
  })

  it('should save a counted resource read before it is sent, and refuse it when the store fails', async () => {
    const store = createMemoryGuardStore()
    const options = { policy: policy(), resources: 'workspace' as const, store, runId: 'run-r' }
    const first = await createMcpCallGuard(options)
    const read = await first.authorizeResource?.('resources/read', `file://${root}/a.txt`)
    expect(read?.allowed).toBe(true)
    expect((await store.load('run-r'))?.state).toMatchObject({ calls: 1 })
    const resumed = await createMcpCallGuard(options)
    expect(resumed.guard.snapshot().calls).toBe(1)
    const failing: GuardStore = {
      ...store,
      load: async () => undefined,
      save: async () => {
        throw new Error('store down')
      },
    }
    const broken = await createMcpCallGuard({ ...options, store: failing })
    const refused = await broken.authorizeResource?.('resources/read', `file://${root}/a.txt`)
    expect(refused?.allowed ? 'allowed' : refused?.issues[0]?.code).toBe('store_failed')
    const subscribed = await broken.authorizeResource?.(
      'resources/subscribe',
      `file://${root}/a.txt`,
    )
    expect(subscribed?.allowed).toBe(true)
  })

  it('should deny calls past a shared budget, and refuse a store without a runId', async () => {
    const store = createMemoryGuardStore()
    const shared = {
      ...policy(),
      budgets: { shared: { reads: { per: 'tenant', maxCalls: 1 } } },
    }
    const outcomes: string[] = []
    for (const runId of ['run-a', 'run-b']) {
      const session = await createMcpCallGuard({
        policy: shared,
        store,
        runId,
        keys: { tenant: 'acme' },
      })
      const call = await session.authorize('read', { path: 'a.txt' })
      outcomes.push(call.allowed ? 'allowed' : String(call.issues[0]?.code))
    }
    expect(outcomes).toEqual(['allowed', 'budget_exhausted'])
    await expect(createMcpCallGuard({ policy: policy(), store })).rejects.toThrow(/runId/)
  })

  it('should resume from a signed store, and refuse a state edited in the store it wraps', async () => {
    const memory = createMemoryGuardStore()
    const store = createSignedGuardStore(memory, { keys: ['k'.repeat(32)] })
    const first = await createMcpCallGuard({ policy: policy(), store, runId: 'run-1' })
    expect((await first.authorize('read', { path: 'a.txt' })).allowed).toBe(true)
    const resumed = await createMcpCallGuard({ policy: policy(), store, runId: 'run-1' })
    expect(resumed.guard.snapshot().calls).toBe(1)
    const row = await memory.load('run-1')
    const signed = row?.state as { signature: string; state: PlanGuardState }
    await memory.save('run-1', {
      revision: (row?.revision ?? 0) + 1,
      state: { ...signed, state: { ...signed.state, calls: 0, status: {} } },
    })
    const refusal = await createMcpCallGuard({ policy: policy(), store, runId: 'run-1' }).catch(
      (error: unknown) => error,
    )
    expect(PlanError.isInstance(refusal) ? refusal.code : refusal).toBe('signature_invalid')
  })
})
