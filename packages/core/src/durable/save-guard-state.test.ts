import { canonicalJson } from '@plan/json'
import { describe, expect, it } from 'vitest'
import { createPlanCompiler } from '../compile/create-plan-compiler.js'
import { createPlanGuard } from '../guard/create-plan-guard.js'
import type { PolicyInput } from '../schema/policy-schema.js'
import type { PlanGuard } from '../types/plan-guard.js'
import { createMemoryGuardStore } from './create-memory-guard-store.js'
import type { GuardStore, SavedRunChanges, SavedRunState } from './guard-store.js'
import { saveGuardState } from './save-guard-state.js'

const policy: PolicyInput = {
  version: 1,
  workspace: { roots: ['/srv/repo'] },
  tools: {
    fetch: { args: { url: { type: 'string' } }, output: { trust: 'untrusted' } },
    note: { args: { text: { type: 'string' } } },
  },
  budgets: { maxSteps: 100, maxDenials: 50 },
}

const steps = [
  { id: 'a', tool: 'fetch', args: { url: 'https://example.com/a' } },
  { id: 'b', tool: 'note', args: { text: 'first note' }, depends_on: ['a'] },
  { id: 'c', tool: 'note', args: { text: 'second note' } },
  { id: 'd', tool: 'fetch', args: { url: 'https://example.com/d' }, depends_on: ['c'] },
  { id: 'e', tool: 'note', args: { text: 'third note' }, depends_on: ['d'] },
]

/** A snapshot as JSON, with the empty objects that changes leave behind dropped. */
function normal(value: unknown): string {
  const drop = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(drop)
    if (typeof node !== 'object' || node === null) return node
    const entries = Object.entries(node)
      .map(([key, item]) => [key, drop(item)] as const)
      .filter(
        ([, item]) =>
          !(
            typeof item === 'object' &&
            item !== null &&
            !Array.isArray(item) &&
            Object.keys(item).length === 0
          ),
      )
    return Object.fromEntries(entries)
  }
  return canonicalJson(drop(JSON.parse(JSON.stringify(value))))
}

/** A memory store that counts what it was given. */
function countingStore(inner: GuardStore = createMemoryGuardStore()) {
  const counts = { whole: 0, changes: 0, bytes: 0 }
  const store: GuardStore = {
    ...inner,
    save: (runId: string, saved: SavedRunState) => {
      counts.whole += 1
      counts.bytes += JSON.stringify(saved.state).length
      return inner.save(runId, saved)
    },
    saveChanges: (runId: string, saved: SavedRunChanges) => {
      counts.changes += 1
      counts.bytes += JSON.stringify(saved.changes).length
      return inner.saveChanges?.(runId, saved) ?? Promise.resolve(false)
    },
  }
  return { store, counts }
}

async function stored(store: GuardStore) {
  return normal((await store.load('run'))?.state)
}

async function runThrough(guard: PlanGuard, save: () => Promise<void>) {
  await save()
  for (const id of ['c', 'a', 'd']) {
    const step = steps.find((entry) => entry.id === id)
    const allowed = await guard.authorize({ tool: step?.tool ?? '', args: step?.args })
    if (!allowed.allowed) throw new Error(allowed.issue.message)
    await save()
    guard.complete(allowed.stepId, { page: `text of ${id} copied into the index` })
    await save()
  }
  await guard.authorize({ tool: 'note', args: { text: 'not planned' } })
  await save()
  const retried = await guard.authorize({ tool: 'note', args: { text: 'first note' } })
  if (!retried.allowed) throw new Error(retried.issue.message)
  guard.release(retried.stepId)
  await save()
  const failing = await guard.authorize({ tool: 'note', args: { text: 'first note' } })
  if (failing.allowed) guard.fail(failing.stepId, new Error('broke'))
  await save()
}

describe('saveGuardState', () => {
  it('should save what changed, so that the store holds the snapshot after every call', async () => {
    const compiler = await createPlanCompiler(policy)
    const guard = createPlanGuard(compiler.compile(steps), { compiler, checkPathsOnDisk: false })
    const { store, counts } = countingStore()
    let revision = 0
    const save = async () => {
      await saveGuardState(guard, { store, runId: 'run', nextRevision: () => ++revision })
      expect(await stored(store)).toBe(normal(guard.snapshot()))
    }
    await runThrough(guard, save)
    expect(counts).toMatchObject({ whole: 1, changes: 9 })
  })

  it('should apply changes that a store confirms out of order, and resume from them', async () => {
    const compiler = await createPlanCompiler(policy)
    const guard = createPlanGuard(compiler.compile(steps), { compiler, checkPathsOnDisk: false })
    const { store } = countingStore()
    let revision = 0
    const pending: Promise<void>[] = []
    const save = async () => {
      // Two saves in flight at once: each one's changes still apply to what the store holds.
      pending.push(saveGuardState(guard, { store, runId: 'run', nextRevision: () => ++revision }))
      if (pending.length > 1) await pending.shift()
    }
    await runThrough(guard, save)
    await Promise.all(pending)
    await saveGuardState(guard, { store, runId: 'run', nextRevision: () => ++revision })
    expect(await stored(store)).toBe(normal(guard.snapshot()))
    const loaded = await store.load('run')
    const resumed = createPlanGuard(undefined, {
      compiler,
      checkPathsOnDisk: false,
      state: loaded?.state as ReturnType<PlanGuard['snapshot']>,
    })
    expect(normal(resumed.snapshot())).toBe(normal(guard.snapshot()))
  })

  it('should save the whole state to a store that takes no changes, or refuses them', async () => {
    const compiler = await createPlanCompiler(policy)
    const guard = createPlanGuard(compiler.compile(steps), { compiler, checkPathsOnDisk: false })
    const memory = createMemoryGuardStore()
    const { store, counts } = countingStore({
      ...memory,
      saveChanges: async () => false,
    })
    let revision = 0
    const save = async () => {
      await saveGuardState(guard, { store, runId: 'run', nextRevision: () => ++revision })
      expect(await stored(store)).toBe(normal(guard.snapshot()))
    }
    await runThrough(guard, save)
    expect(counts).toMatchObject({ whole: 10, changes: 9 })
    expect((await memory.load('run'))?.revision).toBe(10)
  })

  it('should save a new plan as changes that carry the plan', async () => {
    const compiler = await createPlanCompiler(policy)
    const guard = createPlanGuard(compiler.compile(steps), { compiler, checkPathsOnDisk: false })
    const { store, counts } = countingStore()
    let revision = 0
    const save = () =>
      saveGuardState(guard, { store, runId: 'run', nextRevision: () => ++revision })
    await save()
    const first = await guard.authorize({ tool: 'note', args: { text: 'second note' } })
    if (first.allowed) guard.complete(first.stepId, 'done')
    await save()
    const replanned = guard.submitPlan([{ id: 'x', tool: 'note', args: { text: 'new' } }], 'replan')
    expect(replanned.success).toBe(true)
    await save()
    expect(await stored(store)).toBe(normal(guard.snapshot()))
    expect(counts).toMatchObject({ whole: 1, changes: 2 })
  })
})
