import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { createSignedGuardStore, type PlanError } from '@plan/core'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { createPostgresGuardStore, type PostgresGuardStore } from './create-postgres-guard-store.js'
import { postgresTestUrl, uniquePrefix } from './test-utils/postgres-url.js'

const url = postgresTestUrl()
const run = promisify(execFile)
const worker = fileURLToPath(new URL('./__fixtures__/reserve-worker.ts', import.meta.url))

describe.skipIf(url === undefined)('createPostgresGuardStore', () => {
  const stores: PostgresGuardStore[] = []
  function newStore(prefix = uniquePrefix()): PostgresGuardStore {
    const store = createPostgresGuardStore({ connectionString: url as string, tablePrefix: prefix })
    stores.push(store)
    return store
  }

  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()))
  })

  it('should keep the state with the highest revision, exactly as saved', async () => {
    const store = newStore()
    const state = { key: 'echo\u0000{"text":"a"}', nested: [1, { b: true }] }
    await store.save('run-1', { revision: 2, state })
    await store.save('run-1', { revision: 1, state: { stale: true } })
    expect(await store.load('run-1')).toEqual({ revision: 2, state })
    expect(await store.load('run-2')).toBeUndefined()
  })

  it('should refuse the save of a writer that loaded a revision another writer has saved since', async () => {
    const store = newStore()
    await store.save('run-1', { revision: 1, state: { n: 1 } })
    const first = { id: 'first', loadedRevision: 1 }
    const second = { id: 'second', loadedRevision: 1 }
    await store.save('run-1', { revision: 2, state: { by: 'first' }, writer: first })
    await expect(
      store.save('run-1', { revision: 2, state: { by: 'second' }, writer: second }),
    ).rejects.toMatchObject({ code: 'store_failed' })
    await store.save('run-1', { revision: 4, state: { by: 'first', n: 4 }, writer: first })
    // A late write of the same writer is ignored, not refused.
    await store.save('run-1', { revision: 3, state: { by: 'first', n: 3 }, writer: first })
    expect(await store.load('run-1')).toEqual({ revision: 4, state: { by: 'first', n: 4 } })
  })

  it('should give a released reservation back, and forget windows that ended a window ago', async () => {
    const prefix = uniquePrefix()
    const store = newStore(prefix)
    const hour = { budget: 'shell', key: 'acme', maxCalls: 1, windowSeconds: 3600 }
    expect((await store.reserve([{ ...hour, windowStart: 0 }])).reserved).toBe(true)
    await store.release?.([{ ...hour, windowStart: 0 }])
    await store.release?.([{ ...hour, windowStart: 0 }])
    expect((await store.reserve([{ ...hour, windowStart: 0 }])).reserved).toBe(true)
    expect((await store.reserve([{ ...hour, windowStart: 0 }])).reserved).toBe(false)
    // A key that never comes back: its windows go too, once they ended a window ago.
    const gone = { ...hour, key: 'gone' }
    expect((await store.reserve([{ ...gone, windowStart: 0 }])).reserved).toBe(true)
    expect((await store.reserve([{ ...hour, windowStart: 3600 }])).reserved).toBe(true)
    expect((await store.reserve([{ ...gone, windowStart: 3600 }])).reserved).toBe(true)
    expect((await store.reserve([{ ...hour, windowStart: 7200 }])).reserved).toBe(true)
    const client = new pg.Client({ connectionString: url as string })
    await client.connect()
    const rows = await client.query(
      `SELECT key, window_start, used FROM ${prefix}shared_budgets ORDER BY window_start, key`,
    )
    await client.end()
    expect(rows.rows.map((row) => [row.key, Number(row.window_start), row.used])).toEqual([
      ['acme', 3600, 1],
      ['gone', 3600, 1],
      ['acme', 7200, 1],
    ])
  })

  it('should count a reservation while another session holds the row of an old window', async () => {
    const prefix = uniquePrefix()
    const store = newStore(prefix)
    const hour = { budget: 'shell', key: 'acme', maxCalls: 5, windowSeconds: 3600 }
    expect((await store.reserve([{ ...hour, windowStart: 0 }])).reserved).toBe(true)
    const holder = new pg.Client({ connectionString: url as string })
    await holder.connect()
    // Another session holds the old window's row: the cleanup skips it, the call is counted.
    await holder.query('BEGIN')
    await holder.query(`SELECT * FROM ${prefix}shared_budgets WHERE window_start = 0 FOR UPDATE`)
    expect(await store.reserve([{ ...hour, windowStart: 7200 }])).toEqual({ reserved: true })
    await holder.query('ROLLBACK')
    const rows = await holder.query(
      `SELECT window_start, used FROM ${prefix}shared_budgets ORDER BY window_start`,
    )
    await holder.end()
    expect(rows.rows.map((row) => [Number(row.window_start), row.used])).toEqual([
      [0, 1],
      [7200, 1],
    ])
  })

  it('should write what a save changed, not the whole state, and load it whole', async () => {
    const prefix = uniquePrefix()
    const store = newStore(prefix)
    const writer = { id: 'w', loadedRevision: 0 }
    const status: Record<string, string> = Object.fromEntries(
      Array.from({ length: 1000 }, (_, index) => [`s${index}`, 'pending']),
    )
    const state = (calls: number) => ({ guard: { status, calls, outputs: {} }, version: 1 })
    await store.save('run', { revision: 1, state: state(0), writer })
    for (let step = 0; step < 10; step += 1) {
      status[`s${step}`] = 'done'
      await store.save('run', { revision: step + 2, state: state(step + 1), writer })
    }
    const client = new pg.Client({ connectionString: url as string })
    await client.connect()
    const sizes = await client.query(
      `SELECT length(changes) AS bytes FROM ${prefix}guard_run_changes ORDER BY revision`,
    )
    const full = await client.query(`SELECT length(state) AS bytes FROM ${prefix}guard_runs`)
    await client.end()
    expect(sizes.rows).toHaveLength(10)
    expect(sizes.rows.every((row) => Number(row.bytes) < 100)).toBe(true)
    expect(Number(full.rows[0]?.bytes)).toBeGreaterThan(10_000)
    // Another process reads it whole, and goes on from it with changes of its own.
    const other = newStore(prefix)
    expect(await other.load('run')).toEqual({ revision: 11, state: state(10) })
    status.s10 = 'done'
    const next = { id: 'next', loadedRevision: 11 }
    await other.save('run', { revision: 12, state: state(11), writer: next })
    await expect(
      store.save('run', { revision: 12, state: state(0), writer }),
    ).rejects.toMatchObject({ code: 'store_failed' })
    expect(await newStore(prefix).load('run')).toEqual({ revision: 12, state: state(11) })
  })

  it('should keep states signed through createSignedGuardStore, and refuse a row edited in SQL', async () => {
    const prefix = uniquePrefix()
    const store = createSignedGuardStore(newStore(prefix), { keys: ['k'.repeat(32)] })
    const state = { key: 'echo\u0000{"text":"a"}', calls: 1, status: { a: 'running' } }
    await store.save('run-1', { revision: 2, state })
    expect(await store.load('run-1')).toEqual({ revision: 2, state })
    const client = new pg.Client({ connectionString: url as string })
    await client.connect()
    const runs = `${prefix}guard_runs`
    const original = (await client.query(`SELECT revision, state FROM ${runs}`)).rows[0]
    const edits = [
      `UPDATE ${runs} SET state = replace(state, '"calls":1', '"calls":0')`,
      `UPDATE ${runs} SET revision = 3`,
      `UPDATE ${runs} SET state = regexp_replace(state, '"v1\\.[0-9a-f]', '"v1.x')`,
      `UPDATE ${runs} SET state = '{"calls":0,"status":{}}'`,
    ]
    const codes: string[] = []
    for (const edit of edits) {
      await client.query(edit)
      codes.push(
        await store.load('run-1').then(String, (error: unknown) => (error as PlanError).code),
      )
      await client.query(`UPDATE ${runs} SET revision = $1, state = $2`, [
        original.revision,
        original.state,
      ])
    }
    await client.query(
      `INSERT INTO ${runs} (run_id, revision, state) SELECT 'run-2', revision, state FROM ${runs}`,
    )
    codes.push(
      await store.load('run-2').then(String, (error: unknown) => (error as PlanError).code),
    )
    await client.end()
    expect(codes).toEqual(Array(5).fill('signature_invalid'))
    expect(await store.load('run-1')).toEqual({ revision: 2, state })
  })

  it('should count all reservations of a call or none', async () => {
    const store = newStore()
    const shell = { budget: 'shell', key: 'acme', windowStart: 0, maxCalls: 2 }
    const all = { budget: 'all', key: 'acme', windowStart: 0, maxCalls: 1 }
    expect(await store.reserve([shell, all])).toEqual({ reserved: true })
    expect(await store.reserve([shell, all])).toEqual({
      reserved: false,
      reservation: all,
      used: 1,
    })
    expect(await store.reserve([shell])).toEqual({ reserved: true })
    expect(await store.reserve([shell])).toEqual({ reserved: false, reservation: shell, used: 2 })
    expect(await store.reserve([{ ...shell, windowStart: 3600 }])).toEqual({ reserved: true })
    expect(await store.reserve([{ ...shell, key: 'globex' }])).toEqual({ reserved: true })
  })

  it('should set up the same tables from many stores at once', async () => {
    const prefix = uniquePrefix()
    const many = Array.from({ length: 5 }, () => newStore(prefix))
    await Promise.all(many.map((store) => store.setup()))
    expect(await many[0]?.load('none')).toBeUndefined()
  })

  it('should never let 4 processes making 100 concurrent attempts exceed a shared budget together', {
    timeout: 60_000,
  }, async () => {
    const prefix = uniquePrefix()
    await newStore(prefix).setup()
    const outputs = await Promise.all(
      [0, 1, 2, 3].map(() => run(process.execPath, [worker, url as string, prefix, '25', '37'])),
    )
    const granted = outputs.map((output) => Number(output.stdout.trim()))
    expect(granted.every((count) => Number.isInteger(count))).toBe(true)
    expect(granted.reduce((sum, count) => sum + count, 0)).toBe(37)
    const rows = await newStore(prefix).reserve([
      { budget: 'shell', key: 'acme', windowStart: 0, maxCalls: 37 },
    ])
    expect(rows).toMatchObject({ reserved: false, used: 37 })
  })

  it('should refuse a bad table prefix and a missing connection', () => {
    expect(() =>
      createPostgresGuardStore({ connectionString: 'x', tablePrefix: 'a;drop' }),
    ).toThrow(/tablePrefix/)
    expect(() => createPostgresGuardStore({})).toThrow(/exactly one/)
  })

  it('should refuse a part size below 1,024 characters, and take one of that size', async () => {
    for (const stateChunkSize of [0, 1023, 1024.5, Number.NaN]) {
      expect(() => createPostgresGuardStore({ connectionString: 'x', stateChunkSize })).toThrow(
        expect.objectContaining({ code: 'invalid_configuration' }),
      )
    }
    await createPostgresGuardStore({ connectionString: 'x', stateChunkSize: 1024 }).close()
  })
})
