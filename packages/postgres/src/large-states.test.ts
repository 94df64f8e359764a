import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createPostgresGuardStore,
  type PostgresGuardStore,
  type PostgresGuardStoreOptions,
} from './create-postgres-guard-store.js'
import { postgresTestUrl, uniquePrefix } from './test-utils/postgres-url.js'
import { valueChars, type WatchedStatement, watchedPool } from './test-utils/watched-pool.js'

const url = postgresTestUrl()
const worker = fileURLToPath(new URL('./__fixtures__/parts-kill-worker.ts', import.meta.url))
const CHUNK = 1024

/**
 * A state of about `size` × 20 characters with what a part boundary must not break: a call
 * key's \u0000, surrogate pairs at odd offsets, a `__proto__` key of its own.
 */
function bigState(size: number, tag: string): Record<string, unknown> {
  const status = Object.fromEntries(
    Array.from({ length: size }, (_, index) => [`s${index}`, index % 3 === 0 ? 'pending' : 'done']),
  )
  const own: unknown = JSON.parse('{"__proto__": {"polluted": true}}')
  return { tag, key: 'echo\u0000{"text":"a"}', emoji: `x${'😀'.repeat(3000)}`, own, status }
}

const textOf = (state: unknown) => JSON.stringify(state)
const isPart = (prefix: string) => (statement: WatchedStatement) =>
  statement.text.startsWith(`INSERT INTO ${prefix}guard_run_parts`)

function runWorker(args: readonly string[]): Promise<NodeJS.Signals | number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [worker, ...args], { stdio: 'ignore' })
    child.on('exit', (code, signal) => resolve(signal ?? code))
  })
}

describe.skipIf(url === undefined)(
  'createPostgresGuardStore with a state larger than a part',
  () => {
    const stores: PostgresGuardStore[] = []
    const ends: (() => Promise<void>)[] = []
    let admin: pg.Client
    const newStore = (options: Partial<PostgresGuardStoreOptions> & { tablePrefix: string }) => {
      const store = createPostgresGuardStore(
        options.pool === undefined ? { connectionString: url as string, ...options } : options,
      )
      stores.push(store)
      return store
    }
    const partRows = async (prefix: string) =>
      (
        await admin.query(
          `SELECT parts_id, count(*)::int AS parts FROM ${prefix}guard_run_parts GROUP BY parts_id`,
        )
      ).rows.map((row) => [row.parts_id, row.parts])

    beforeAll(async () => {
      admin = new pg.Client({ connectionString: url as string })
      await admin.connect()
    })

    afterAll(async () => {
      await Promise.all(stores.map((store) => store.close()))
      await Promise.all(ends.map((end) => end()))
      await admin.end()
    })

    it('should write and read a state in parts, no statement above stateChunkSize, exactly', async () => {
      const prefix = uniquePrefix()
      const sent: WatchedStatement[] = []
      const received: number[] = []
      const pool = watchedPool(url as string, {
        before: (statement) => {
          sent.push(statement)
        },
        after: (_, chars) => {
          received.push(chars)
        },
      })
      ends.push(() => pool.end())
      const store = newStore({ pool, tablePrefix: prefix, stateChunkSize: CHUNK })
      await store.setup()
      const state = bigState(3000, 'first')
      const text = textOf(state)
      expect(text.length).toBeGreaterThan(40 * CHUNK)
      const writer = { id: 'w', loadedRevision: 0 }
      await store.save('run', { revision: 1, state, writer })
      const parts = sent.filter(isPart(prefix))
      expect(parts.length).toBeGreaterThanOrEqual(Math.ceil(text.length / CHUNK))
      expect(parts.length).toBeLessThanOrEqual(Math.ceil(text.length / (CHUNK - 1)))
      expect(Math.max(...sent.map(valueChars))).toBeLessThanOrEqual(CHUNK + 64)
      // A store of another process reads it whole; this one reads it a part at a time.
      expect(textOf((await newStore({ tablePrefix: prefix }).load('run'))?.state)).toBe(text)
      received.length = 0
      expect(textOf((await store.load('run'))?.state)).toBe(text)
      expect(Math.max(...received)).toBeLessThanOrEqual(CHUNK)
      const row = await admin.query(`SELECT state, parts FROM ${prefix}guard_runs`)
      expect(row.rows).toEqual([{ state: '', parts: parts.length }])
      // Changes on top of a state in parts, then a new full state: the old parts are deleted.
      const status = state.status as Record<string, string>
      status.s0 = 'done'
      await store.save('run', { revision: 2, state, writer })
      expect(textOf((await newStore({ tablePrefix: prefix }).load('run'))?.state)).toBe(
        textOf(state),
      )
      const next = bigState(3000, 'second')
      const other = newStore({ tablePrefix: prefix, stateChunkSize: CHUNK })
      await other.save('run', { revision: 3, state: next, writer: { id: 'x', loadedRevision: 2 } })
      expect(textOf((await newStore({ tablePrefix: prefix }).load('run'))?.state)).toBe(
        textOf(next),
      )
      // The parts of the state before go after the save, by the time the store is closed.
      await other.close()
      const named = (await admin.query(`SELECT parts_id, parts FROM ${prefix}guard_runs`)).rows[0]
      expect(await partRows(prefix)).toEqual([[named?.parts_id, named?.parts]])
    })

    it('should save in parts, within statementMs and callMs each, a state one statement cannot', {
      timeout: 60_000,
    }, async () => {
      const prefix = uniquePrefix()
      await newStore({ tablePrefix: prefix }).setup()
      // The server takes 30 ms per 1,024 characters a statement writes: the whole state in one
      // statement takes about 2.4 s, a part 30 ms.
      await admin.query(`CREATE FUNCTION ${prefix}slow() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_sleep(length(to_jsonb(NEW)::text) / 1024.0 * 0.03);
        RETURN NEW;
      END $$`)
      for (const table of ['guard_runs', 'guard_run_parts']) {
        await admin.query(`CREATE TRIGGER slow BEFORE INSERT OR UPDATE ON ${prefix}${table}
        FOR EACH ROW EXECUTE FUNCTION ${prefix}slow()`)
      }
      const state = bigState(5000, 'slow')
      expect(textOf(state).length).toBeGreaterThan(80 * CHUNK)
      const timeouts = { statementMs: 1_500, callMs: 1_500 }
      const whole = newStore({
        tablePrefix: prefix,
        timeouts: { ...timeouts, callMs: 30_000 },
        stateChunkSize: 1 << 20,
      })
      const refused = await whole
        .save('run', { revision: 1, state })
        .catch((error: unknown) => error)
      expect((refused as { code?: string }).code).toBe('57014')
      expect(await newStore({ tablePrefix: prefix }).load('run')).toBeUndefined()
      // In parts: each statement takes 30 ms, the save (80 parts or more) longer than callMs.
      const parted = newStore({ tablePrefix: prefix, timeouts, stateChunkSize: CHUNK })
      await parted.save('run', { revision: 1, state })
      const row = await admin.query(`SELECT parts FROM ${prefix}guard_runs`)
      expect(row.rows[0]?.parts * 30).toBeGreaterThan(timeouts.callMs)
      expect(textOf((await parted.load('run'))?.state)).toBe(textOf(state))
    })

    it('should leave the previous revision whole when the process dies while it writes parts', {
      timeout: 60_000,
    }, async () => {
      const prefix = uniquePrefix()
      const store = newStore({ tablePrefix: prefix, stateChunkSize: CHUNK })
      const state = bigState(2000, 'before')
      await store.save('run', { revision: 1, state, writer: { id: 'w', loadedRevision: 0 } })
      const before = await partRows(prefix)
      for (const killAt of ['0', '5']) {
        expect(await runWorker([url as string, prefix, 'run', String(20 * CHUNK), killAt])).toBe(
          'SIGKILL',
        )
        const loaded = await newStore({ tablePrefix: prefix }).load('run')
        expect(loaded?.revision).toBe(1)
        expect(textOf(loaded?.state)).toBe(textOf(state))
        expect(await partRows(prefix)).toEqual(before)
      }
      // Not killed, the same worker takes the run over from revision 1.
      expect(await runWorker([url as string, prefix, 'run', String(20 * CHUNK), '-1'])).toBe(0)
      const saved = await newStore({ tablePrefix: prefix }).load('run')
      expect(saved).toMatchObject({ revision: 2, state: { by: 'killed' } })
    })

    it('should leave the previous revision whole when the server ends the connection of a save in parts', async () => {
      const prefix = uniquePrefix()
      let parts = 0
      let terminated = 0
      const pool = watchedPool(url as string, {
        before: async (statement) => {
          if (!isPart(prefix)(statement) || statement.backend === undefined) return
          parts += 1
          if (parts !== 3) return
          await admin.query('SELECT pg_terminate_backend($1)', [await statement.backend()])
          terminated += 1
        },
      })
      ends.push(() => pool.end())
      const store = newStore({ pool, tablePrefix: prefix, stateChunkSize: CHUNK })
      const writer = { id: 'w', loadedRevision: 0 }
      await store.save('run', { revision: 1, state: { small: true }, writer })
      const big = bigState(2000, 'cut')
      await expect(store.save('run', { revision: 2, state: big, writer })).rejects.toThrow()
      expect(terminated).toBe(1)
      expect(await newStore({ tablePrefix: prefix }).load('run')).toEqual({
        revision: 1,
        state: { small: true },
      })
      expect(await partRows(prefix)).toEqual([])
      // The store goes on: the next save, on a new connection, writes the whole state again.
      await store.save('run', { revision: 3, state: big, writer })
      expect(textOf((await newStore({ tablePrefix: prefix }).load('run'))?.state)).toBe(textOf(big))
    })

    it('should save changes longer than a part as the full state, and shorter ones as changes', async () => {
      const prefix = uniquePrefix()
      const store = newStore({ tablePrefix: prefix, stateChunkSize: CHUNK })
      const writer = { id: 'w', loadedRevision: 0 }
      const state: Record<string, unknown> = { calls: 0, outputs: {} }
      await store.save('run', { revision: 1, state, writer })
      const changed = (revision: number, value: string) => ({
        revision,
        changes: {
          since: revision - 1,
          set: [[['outputs', `o${revision}`], value]] as const,
          delete: [],
        },
        writer,
      })
      expect(await store.saveChanges('run', changed(2, 'short'))).toBe(true)
      expect(await store.saveChanges('run', changed(3, 'l'.repeat(CHUNK)))).toBe(false)
      const full = { calls: 3, outputs: { o2: 'short', o3: 'l'.repeat(CHUNK) } }
      await store.save('run', { revision: 3, state: full, writer })
      // Through save alike: a diff longer than a part is written as the full state.
      const grown = { ...full, outputs: { ...full.outputs, o4: 'g'.repeat(2 * CHUNK) } }
      await store.save('run', { revision: 4, state: grown, writer })
      await store.close()
      const changes = await admin.query(`SELECT revision FROM ${prefix}guard_run_changes`)
      const row = await admin.query(
        `SELECT revision, base_revision, parts FROM ${prefix}guard_runs`,
      )
      expect(changes.rows).toEqual([])
      expect(row.rows).toEqual([{ revision: '4', base_revision: '4', parts: 4 }])
      expect(await newStore({ tablePrefix: prefix }).load('run')).toEqual({
        revision: 4,
        state: grown,
      })
    })

    it('should take changes until they add up to the state, then delete them in batches', {
      timeout: 120_000,
    }, async () => {
      const prefix = uniquePrefix()
      const store = newStore({ tablePrefix: prefix, stateChunkSize: CHUNK })
      const writer = { id: 'w', loadedRevision: 0 }
      const state = { calls: 0, pad: 'p'.repeat(45_000) }
      await store.save('run', { revision: 1, state, writer })
      const calls = (revision: number) => ({
        revision,
        changes: { since: revision - 1, set: [[['calls'], revision - 1]] as const, delete: [] },
        writer,
      })
      let revision = 1
      while (await store.saveChanges('run', calls(revision + 1))) revision += 1
      // About 39 characters a change: more changes than one statement deletes.
      const rows = async () =>
        Number(
          (await admin.query(`SELECT count(*) AS n FROM ${prefix}guard_run_changes`)).rows[0]?.n,
        )
      expect(await rows()).toBe(revision - 1)
      expect(revision - 1).toBeGreaterThan(1024)
      expect(await newStore({ tablePrefix: prefix }).load('run')).toEqual({
        revision,
        state: { ...state, calls: revision - 1 },
      })
      // Read a part's worth of changes at a time: some 44 statements, none above two parts.
      const pages: number[] = []
      const pool = watchedPool(url as string, {
        after: (statement, chars) => {
          if (statement.text.includes(`FROM ${prefix}guard_run_changes`)) pages.push(chars)
        },
      })
      ends.push(() => pool.end())
      const watched = newStore({ pool, tablePrefix: prefix, stateChunkSize: CHUNK })
      expect((await watched.load('run'))?.revision).toBe(revision)
      expect(pages.length).toBeGreaterThan(Math.floor((revision - 1) / (CHUNK / 36)))
      expect(pages.length).toBeLessThan(Math.ceil((revision - 1) / (CHUNK / 42)) + 2)
      expect(Math.max(...pages)).toBeLessThanOrEqual(2 * CHUNK)
      await store.save('run', {
        revision: revision + 1,
        state: { ...state, calls: revision },
        writer,
      })
      await store.close()
      expect(await rows()).toBe(0)
      expect(await newStore({ tablePrefix: prefix }).load('run')).toEqual({
        revision: revision + 1,
        state: { ...state, calls: revision },
      })
    })

    it('should let one of two writers racing a save in parts win, and refuse the other', async () => {
      const prefix = uniquePrefix()
      await newStore({ tablePrefix: prefix }).save('run', { revision: 1, state: { n: 1 } })
      // Both write two parts, wait for each other, then write the rest and set the row.
      let waiting = 0
      let midway: unknown
      let release: () => void = () => undefined
      const barrier = new Promise<void>((resolve) => {
        release = resolve
      })
      const racer = (name: string) => {
        let parts = 0
        const pool = watchedPool(url as string, {
          before: async (statement) => {
            if (!isPart(prefix)(statement) || ++parts !== 3) return
            waiting += 1
            if (waiting === 2) {
              // Neither save has committed: a load reads the revision before them.
              midway = await newStore({ tablePrefix: prefix }).load('run')
              release()
            }
            await barrier
          },
        })
        ends.push(() => pool.end())
        const store = newStore({ pool, tablePrefix: prefix, stateChunkSize: CHUNK })
        const state = bigState(2000, name)
        const writer = { id: name, loadedRevision: 1 }
        return { state, store, save: () => store.save('run', { revision: 2, state, writer }) }
      }
      const racers = [racer('a'), racer('b')]
      const outcomes = await Promise.allSettled(racers.map((one) => one.save()))
      const won = outcomes.findIndex((outcome) => outcome.status === 'fulfilled')
      const lost = outcomes.find((outcome) => outcome.status === 'rejected')
      expect(waiting).toBe(2)
      expect(midway).toEqual({ revision: 1, state: { n: 1 } })
      expect(won).toBeGreaterThanOrEqual(0)
      expect(lost?.reason).toMatchObject({ code: 'store_failed' })
      const loaded = await newStore({ tablePrefix: prefix }).load('run')
      expect(textOf(loaded?.state)).toBe(textOf(racers[won]?.state))
      // The loser's parts were rolled back with its save: one state's parts are left.
      expect((await partRows(prefix)).length).toBe(1)
    })
  },
)

describe.skipIf(url === undefined)(
  'createPostgresGuardStore on tables of an earlier version',
  () => {
    it('should load the rows an earlier version wrote, and save over them in parts', async () => {
      const prefix = uniquePrefix()
      const admin = new pg.Client({ connectionString: url as string })
      await admin.connect()
      // The tables as the version before parts made them, and rows as it wrote them.
      await admin.query(`CREATE TABLE ${prefix}guard_runs (run_id text PRIMARY KEY,
      revision bigint NOT NULL, state text NOT NULL, writer text,
      updated_at timestamptz NOT NULL DEFAULT now(), base_revision bigint)`)
      await admin.query(`CREATE TABLE ${prefix}guard_run_changes (run_id text NOT NULL,
      revision bigint NOT NULL, changes text NOT NULL, PRIMARY KEY (run_id, revision))`)
      const runs = `INSERT INTO ${prefix}guard_runs (run_id, revision, state, writer, base_revision)
      VALUES ($1, $2, $3, $4, $5)`
      await admin.query(runs, ['changed', 3, '{"calls":0,"status":{"a":"pending"}}', 'w', 1])
      await admin.query(runs, ['whole', 2, '{"key":"echo\\u0000x"}', null, null])
      const changes = `INSERT INTO ${prefix}guard_run_changes VALUES ($1, $2, $3)`
      await admin.query(changes, ['changed', 2, '{"set":[[["calls"],1]],"delete":[]}'])
      await admin.query(changes, ['changed', 3, '{"set":[[["status","a"],"done"]],"delete":[]}'])
      await admin.end()
      const store = createPostgresGuardStore({
        connectionString: url as string,
        tablePrefix: prefix,
        stateChunkSize: CHUNK,
      })
      try {
        expect(await store.load('changed')).toEqual({
          revision: 3,
          state: { calls: 1, status: { a: 'done' } },
        })
        expect(await store.load('whole')).toEqual({ revision: 2, state: { key: 'echo\u0000x' } })
        const big = bigState(2000, 'new')
        await store.save('changed', {
          revision: 4,
          state: big,
          writer: { id: 'w', loadedRevision: 3 },
        })
        expect(textOf((await store.load('changed'))?.state)).toBe(textOf(big))
        await store.save('whole', { revision: 3, state: { key: 'small' } })
        expect(await store.load('whole')).toEqual({ revision: 3, state: { key: 'small' } })
        // That version saving over a state in parts writes the row's state, leaves the parts.
        const earlier = new pg.Client({ connectionString: url as string })
        await earlier.connect()
        await earlier.query(`UPDATE ${prefix}guard_runs SET revision = 5, state = '{"by":"old"}'
          WHERE run_id = 'changed'`)
        await earlier.end()
        expect(await store.load('changed')).toEqual({ revision: 5, state: { by: 'old' } })
      } finally {
        await store.close()
      }
    })
  },
)
