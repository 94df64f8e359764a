import {
  type BudgetReservation,
  type GuardStore,
  PlanError,
  type ReserveResult,
  type SavedRunChanges,
} from '@plan/core'
import pg from 'pg'
import type { PostgresClient, PostgresPool } from './postgres-pool.js'
import { RunStateWrites } from './run-state-writes.js'
import { storeSql } from './store-sql.js'
import { type PostgresStoreTimeouts, resolveTimeouts } from './store-timeout-options.js'
import {
  ignoreConnectionError,
  poolConfig,
  withDeadline,
  withProgressDeadline,
} from './store-timeouts.js'
import { inTransaction, rollBack, type Transaction } from './store-transaction.js'

/** Options for {@link createPostgresGuardStore}: a pool, or a connection string. */
export interface PostgresGuardStoreOptions {
  /** A `pg` pool (or anything with its `query`, `connect` and `end`); the store never ends it. */
  readonly pool?: PostgresPool
  /** A connection string, e.g. `postgres://user@localhost/db`; the store makes and owns a pool. */
  readonly connectionString?: string
  /** Prefix of the table names (`<prefix>guard_runs`, `<prefix>shared_budgets`). Default `plan_`. */
  readonly tablePrefix?: string
  /**
   * How long to wait for the database. All apply to a pool the store makes; with `pool`, only
   * `callMs` (set the pool's own `connectionTimeoutMillis` and `statement_timeout`).
   */
  readonly timeouts?: PostgresStoreTimeouts
  /**
   * The most characters of a run's full state written or read in one statement. A longer state
   * is written as parts of this size in one transaction, so no statement's size or time grows
   * with the state. Default 1,048,576 (1 MiB of ASCII JSON); at least 1,024.
   */
  readonly stateChunkSize?: number
}

/** A {@link GuardStore} on PostgreSQL. */
export interface PostgresGuardStore extends GuardStore {
  /** See {@link GuardStore.saveChanges}: a row of the changes, on top of the revision it holds. */
  saveChanges(runId: string, saved: SavedRunChanges): Promise<boolean>
  /** See {@link GuardStore.release}. */
  release(reservations: readonly BudgetReservation[]): Promise<void>
  /** Creates the tables when they are missing; every other method calls it first. */
  setup(): Promise<void>
  /**
   * Waits for the deletions a full save left under way (of the changes and parts it replaced),
   * then ends the pool, when the store made it from a connection string.
   */
  close(): Promise<void>
}

type StoreSqlText = ReturnType<typeof storeSql>

const DEFAULT_CHUNK_SIZE = 1 << 20
const MIN_CHUNK_SIZE = 1024

function setupError(message: string): PlanError {
  return new PlanError(message, { code: 'invalid_configuration' })
}

function order(left: BudgetReservation, right: BudgetReservation): number {
  const a = JSON.stringify([left.budget, left.key, left.windowStart])
  const b = JSON.stringify([right.budget, right.key, right.windowStart])
  return a < b ? -1 : a > b ? 1 : 0
}

/** What one reservation got: counted (and whether it opened its window), or the count refused. */
type ReserveOne =
  | { readonly used?: undefined; readonly opened: boolean }
  | { readonly used: number }

async function reserveOne(
  client: PostgresClient | PostgresPool,
  sql: StoreSqlText,
  reservation: BudgetReservation,
): Promise<ReserveOne> {
  const { budget, key, windowStart, maxCalls } = reservation
  const result = await client.query(sql.reserve, [budget, key, windowStart, maxCalls])
  if (result.rows.length > 0) return { opened: Number(result.rows[0]?.used) === 1 }
  const used = await client.query(sql.used, [budget, key, windowStart])
  return { used: Number(used.rows[0]?.used ?? maxCalls) }
}

/**
 * After the first call of a window was counted: deletes the counts of the budget's windows (of
 * every key) that ended a window ago, which no call reads again. Best effort: the reservation
 * has committed, so a failure here changes nothing for the call.
 */
async function forgetOldWindows(
  pool: PostgresPool,
  sql: StoreSqlText,
  opened: readonly BudgetReservation[],
): Promise<void> {
  for (const { budget, windowStart, windowSeconds } of opened) {
    if (windowSeconds === undefined) continue
    await pool.query(sql.forgetOld, [budget, windowStart - windowSeconds]).catch(() => undefined)
  }
}

// The table prefix, timeouts and part size of the options; a setup error for a bad one.
function readOptions(options: PostgresGuardStoreOptions) {
  const prefix = options.tablePrefix ?? 'plan_'
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(prefix)) {
    throw setupError(
      `tablePrefix must be lower-case letters, digits and _, got ${JSON.stringify(prefix)}.`,
    )
  }
  if ((options.pool === undefined) === (options.connectionString === undefined)) {
    throw setupError('createPostgresGuardStore needs exactly one of `pool` or `connectionString`.')
  }
  const chunkSize = options.stateChunkSize ?? DEFAULT_CHUNK_SIZE
  if (!Number.isSafeInteger(chunkSize) || chunkSize < MIN_CHUNK_SIZE) {
    throw setupError(`stateChunkSize must be a whole number of at least ${MIN_CHUNK_SIZE}.`)
  }
  return { prefix, timeouts: resolveTimeouts(options.timeouts), chunkSize }
}

/**
 * A guard store on PostgreSQL: run states survive a crash of the process (each is written
 * before its call starts and committed before the tool runs), and shared budgets hold across
 * every process that uses the same database: a reservation is one conditional
 * `INSERT … ON CONFLICT DO UPDATE … WHERE used < max`, so concurrent calls can never together
 * exceed a budget. A count is given back only for a call whose save failed (its tool never
 * started); the first call of a window deletes the budget's counts (of every key) of windows
 * that ended a window ago.
 *
 * A run has one writer: a save names its writer and is compare-and-set on the revision that
 * writer loaded, so a second worker that resumed the same run is refused (`store_failed`)
 * before its tool starts. A connection the server ends, a server that does not answer within
 * the `timeouts`, or a lock held too long fails the call it affects; it never crashes the
 * process.
 *
 * A save writes what changed since the run's last full state; a full state longer than
 * `stateChunkSize` is written as parts, one statement each, in the transaction of its
 * compare-and-set, so no statement grows with the state and a save that dies midway leaves the
 * previous revision whole.
 *
 * @example
 * ```ts
 * import { createPostgresGuardStore } from '@plan/postgres'
 *
 * const store = createPostgresGuardStore({ connectionString: process.env.DATABASE_URL })
 * const agent = createAgent({
 *   model,
 *   tools,
 *   middleware: [planGuardMiddleware({ policy, store, keys: { tenant: 'acme' } })],
 * })
 * ```
 */
export function createPostgresGuardStore(options: PostgresGuardStoreOptions): PostgresGuardStore {
  const { prefix, timeouts, chunkSize } = readOptions(options)
  const owned = options.pool === undefined
  const pool: PostgresPool =
    options.pool ?? new pg.Pool(poolConfig(options.connectionString as string, timeouts))
  // An idle connection the server ended: the pool drops it; the next call gets a new one.
  pool.on?.('error', ignoreConnectionError)
  // A pool the store did not make: each connection gets a listener once it is open.
  if (!owned) pool.on?.('connect', listenToClient)
  const sql = storeSql(prefix)
  const transaction: Transaction = (work, begin) => inTransaction(pool, work, begin)
  let ready: Promise<void> | undefined
  let closed = false

  // Bounded on its own: a setup that never ends (a connection of a pool you pass that hangs) is
  // tried again by the next call instead of holding every later call.
  function setup(): Promise<void> {
    ready ??= withDeadline(
      transaction(async (client) => {
        await client.query(sql.lock)
        await client.query(sql.createRuns)
        await client.query(sql.addWriter)
        await client.query(sql.addBase)
        await client.query(sql.createChanges)
        await client.query(sql.addParts)
        await client.query(sql.addPartsId)
        await client.query(sql.createParts)
        await client.query(sql.createBudgets)
        await client.query(sql.indexWindows)
      }),
      timeouts.callMs,
      'the setup of its tables',
    ).catch((error: unknown) => {
      ready = undefined
      throw error
    })
    return ready
  }

  const runs = new RunStateWrites(pool, transaction, sql, chunkSize)
  const bounded = <T>(what: string, work: () => Promise<T>): Promise<T> =>
    withDeadline(setup().then(work), timeouts.callMs, what)
  // A load or save of a state in many parts: `callMs` bounds the wait for each of them.
  const progressing = <T>(what: string, work: (progress: () => void) => Promise<T>) =>
    withProgressDeadline((progress) => setup().then(() => work(progress)), timeouts.callMs, what)

  return {
    setup,
    load: (runId) => progressing('a load', (progress) => runs.load(runId, progress)),
    save: (runId, saved) => progressing('a save', (progress) => runs.save(runId, saved, progress)),
    saveChanges: (runId, saved) => bounded('a save', () => runs.saveChanges(runId, saved)),
    reserve: (reservations) =>
      bounded('a reservation', () => reserveAll(pool, transaction, sql, reservations)),
    release: (reservations) =>
      bounded('a release', async () => {
        for (const { budget, key, windowStart } of reservations) {
          await pool.query(sql.release, [budget, key, windowStart])
        }
      }),
    async close(): Promise<void> {
      await runs.deletionsEnded()
      if (owned && !closed) {
        closed = true
        await pool.end()
      }
    },
  }
}

type StoreSql = ReturnType<typeof storeSql>

function listenToClient(client: PostgresClient): void {
  client.on?.('error', ignoreConnectionError)
}
async function reserveAll(
  pool: PostgresPool,
  transaction: Transaction,
  sql: StoreSql,
  reservations: readonly BudgetReservation[],
): Promise<ReserveResult> {
  const first = reservations[0]
  if (first === undefined) return { reserved: true }
  if (reservations.length === 1) {
    const one = await reserveOne(pool, sql, first)
    if (one.used !== undefined) return { reserved: false, reservation: first, used: one.used }
    if (one.opened) await forgetOldWindows(pool, sql, [first])
    return { reserved: true }
  }
  // In one order, so two transactions never wait on each other's rows (no deadlock).
  const sorted = [...reservations].sort(order)
  let refused: ReserveResult | undefined
  const opened: BudgetReservation[] = []
  await transaction(async (client) => {
    for (const reservation of sorted) {
      const one = await reserveOne(client, sql, reservation)
      if (one.used !== undefined) {
        refused = { reserved: false, reservation, used: one.used }
        throw rollBack
      }
      if (one.opened) opened.push(reservation)
    }
  }).catch((error: unknown) => {
    if (error !== rollBack) throw error
  })
  if (refused !== undefined) return refused
  await forgetOldWindows(pool, sql, opened)
  return { reserved: true }
}
