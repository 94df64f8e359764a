import {
  createPlanCompiler,
  createPlanGuard,
  type PlanGuard,
  type PlanGuardState,
} from '@plan/core'
import { canonicalJson, saveGuardState } from '@plan/core/adapter'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { createPostgresGuardStore, type PostgresGuardStore } from './create-postgres-guard-store.js'
import { postgresTestUrl, uniquePrefix } from './test-utils/postgres-url.js'

const url = postgresTestUrl()

const policy = {
  version: 1 as const,
  workspace: { roots: ['/srv/repo'] },
  tools: {
    fetch: { args: { url: { type: 'string' as const } }, output: { trust: 'untrusted' as const } },
    work: { args: { n: { type: 'number' as const } } },
  },
  budgets: { maxSteps: 10_000, maxDepth: 10_000, maxFanOut: 10_000 },
}

/** A snapshot as JSON, with the empty objects that changes leave behind dropped. */
function normal(value: unknown): string {
  const drop = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(drop)
    if (typeof node !== 'object' || node === null) return node
    const entries = Object.entries(node).map(([key, item]) => [key, drop(item)] as const)
    const empty = (item: unknown) =>
      typeof item === 'object' && item !== null && !Array.isArray(item) && !Object.keys(item).length
    return Object.fromEntries(entries.filter(([, item]) => !empty(item)))
  }
  return canonicalJson(drop(JSON.parse(JSON.stringify(value))))
}

function chain(size: number) {
  return Array.from({ length: size }, (_, index) => ({
    id: `s${index}`,
    tool: index % 10 === 3 ? 'fetch' : 'work',
    args: index % 10 === 3 ? { url: `https://example.com/${index}` } : { n: index },
    ...(index === 0 ? {} : { depends_on: [`s${index - 1}`] }),
  }))
}

async function call(guard: PlanGuard, step: ReturnType<typeof chain>[number]) {
  const allowed = await guard.authorize({ tool: step.tool, args: step.args })
  if (!allowed.allowed) throw new Error(allowed.issue.message)
  return allowed.stepId
}

describe.skipIf(url === undefined)('createPostgresGuardStore with saveGuardState', () => {
  const stores: PostgresGuardStore[] = []
  const newStore = (prefix: string) => {
    const store = createPostgresGuardStore({ connectionString: url as string, tablePrefix: prefix })
    stores.push(store)
    return store
  }
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()))
  })

  it('should write a row of changes per save that another process loads as the snapshot', async () => {
    const prefix = uniquePrefix()
    const store = newStore(prefix)
    const compiler = await createPlanCompiler(policy)
    const steps = chain(40)
    const guard = createPlanGuard(compiler.compile(steps), { compiler, checkPathsOnDisk: false })
    let revision = 0
    let whole = 0
    const counted = {
      ...store,
      save: (runId: string, saved: Parameters<PostgresGuardStore['save']>[1]) => {
        whole += 1
        return store.save(runId, saved)
      },
    }
    const target = { store: counted, runId: 'run', nextRevision: () => ++revision }
    await saveGuardState(guard, target)
    for (const step of steps) {
      const stepId = await call(guard, step)
      await saveGuardState(guard, target)
      guard.complete(stepId, { text: `output of ${stepId}, long enough to be indexed` })
      await saveGuardState(guard, target)
      // A store of another process reads what the rows add up to.
      const loaded = await newStore(prefix).load('run')
      expect(normal(loaded?.state)).toBe(normal(guard.snapshot()))
    }
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      const rows = await client.query(
        `SELECT length(changes) AS bytes FROM ${prefix}guard_run_changes WHERE run_id = 'run'`,
      )
      const largest = Math.max(...rows.rows.map((row) => Number(row.bytes)))
      // One step, the counters and an output: not the 40 steps of the run.
      expect(largest).toBeLessThan(1_500)
      expect(JSON.stringify(guard.snapshot()).length).toBeGreaterThan(10_000)
      // The whole state again only once the changes since the last one outgrow it.
      // Of 81 saves, the first and about one in 15 after it (the rows before it are dropped).
      expect(whole).toBeLessThanOrEqual(8)
      expect(rows.rows.length).toBeGreaterThan(0)
    } finally {
      await client.end()
    }
    const resumed = createPlanGuard(undefined, {
      compiler,
      checkPathsOnDisk: false,
      state: (await newStore(prefix).load('run'))?.state as PlanGuardState,
    })
    expect(resumed.isComplete()).toBe(true)
  })

  it('should refuse the changes of a writer whose run another writer has saved since', async () => {
    const prefix = uniquePrefix()
    const compiler = await createPlanCompiler(policy)
    const steps = chain(4)
    const first = newStore(prefix)
    const guard = createPlanGuard(compiler.compile(steps), { compiler, checkPathsOnDisk: false })
    let revision = 0
    const writer = { id: 'first', loadedRevision: 0 }
    const target = { store: first, runId: 'run', writer, nextRevision: () => ++revision }
    await saveGuardState(guard, target)
    // A duplicated worker resumes the same run and saves first.
    const second = newStore(prefix)
    const loaded = await second.load('run')
    const other = createPlanGuard(undefined, {
      compiler,
      checkPathsOnDisk: false,
      state: loaded?.state as PlanGuardState,
    })
    let otherRevision = loaded?.revision ?? 0
    await saveGuardState(other, {
      store: second,
      runId: 'run',
      writer: { id: 'second', loadedRevision: loaded?.revision ?? 0 },
      nextRevision: () => ++otherRevision,
    })
    await call(guard, steps[0] as ReturnType<typeof chain>[number])
    await expect(saveGuardState(guard, target)).rejects.toMatchObject({ code: 'store_failed' })
  })
})
