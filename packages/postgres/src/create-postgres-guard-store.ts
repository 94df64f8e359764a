import {
  type BudgetReservation,
  type GuardStore,
  PlanError,
  type ReserveResult,
  type SavedRunState,
} from '@plan/core'
import pg from 'pg'
import type { PostgresClient, PostgresPool } from './postgres-pool.js'
import { storeSql } from './store-sql.js'

/** Options for {@link createPostgresGuardStore}: a pool, or a connection string. */
export interface PostgresGuardStoreOptions {
  /** A `pg` pool (or anything with its `query`, `connect` and `end`); the store never ends it. */
  readonly pool?: PostgresPool
  /** A connection string, e.g. `postgres://user@localhost/db`; the store makes and owns a pool. */
  readonly connectionString?: string
  /** Prefix of the table names (`<prefix>guard_runs`, `<prefix>shared_budgets`). Default `plan_`. */
  readonly tablePrefix?: string
}

/** A {@link GuardStore} on PostgreSQL. */
export interface PostgresGuardStore extends GuardStore {
  /** Creates the tables when they are missing; every other method calls it first. */
  setup(): Promise<void>
  /** Ends the pool, when the store made it from a connection string. */
  close(): Promise<void>
}

function setupError(message: string): PlanError {
  return new PlanError(message, { code: 'invalid_configuration' })
}

function order(left: BudgetReservation, right: BudgetReservation): number {
  const a = JSON.stringify([left.budget, left.key, left.windowStart])
  const b = JSON.stringify([right.budget, right.key, right.windowStart])
  return a < b ? -1 : a > b ? 1 : 0
}

async function reserveOne(
  client: PostgresClient | PostgresPool,
  sql: ReturnType<typeof storeSql>,
  reservation: BudgetReservation,
): Promise<number | undefined> {
  const { budget, key, windowStart, maxCalls } = reservation
  const result = await client.query(sql.reserve, [budget, key, windowStart, maxCalls])
  if (result.rows.length > 0) return undefined
  const used = await client.query(sql.used, [budget, key, windowStart])
  return Number(used.rows[0]?.used ?? maxCalls)
}

/**
 * A guard store on PostgreSQL: run states survive a crash of the process (each is written
 * before its call starts and committed before the tool runs), and shared budgets hold across
 * every process that uses the same database: a reservation is one conditional
 * `INSERT … ON CONFLICT DO UPDATE … WHERE used < max`, so concurrent calls can never together
 * exceed a budget. Counts are never given back.
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
  const prefix = options.tablePrefix ?? 'plan_'
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(prefix)) {
    throw setupError(
      `tablePrefix must be lower-case letters, digits and _, got ${JSON.stringify(prefix)}.`,
    )
  }
  if ((options.pool === undefined) === (options.connectionString === undefined)) {
    throw setupError('createPostgresGuardStore needs exactly one of `pool` or `connectionString`.')
  }
  const owned = options.pool === undefined
  const pool: PostgresPool =
    options.pool ?? new pg.Pool({ connectionString: options.connectionString })
  const sql = storeSql(prefix)
  let ready: Promise<void> | undefined

  async function transaction<T>(work: (client: PostgresClient) => Promise<T>): Promise<T> {
    const client = await pool.connect()
    try {
      await client.query('BEGIN')
      const result = await work(client)
      await client.query('COMMIT')
      return result
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined)
      throw error
    } finally {
      client.release()
    }
  }

  function setup(): Promise<void> {
    ready ??= transaction(async (client) => {
      await client.query(sql.lock)
      await client.query(sql.createRuns)
      await client.query(sql.createBudgets)
    }).catch((error: unknown) => {
      ready = undefined
      throw error
    })
    return ready
  }

  return {
    setup,
    async load(runId: string): Promise<SavedRunState | undefined> {
      await setup()
      const result = await pool.query(sql.load, [runId])
      const row = result.rows[0]
      if (row === undefined) return undefined
      return { revision: Number(row.revision), state: JSON.parse(String(row.state)) }
    },
    async save(runId: string, saved: SavedRunState): Promise<void> {
      await setup()
      // Text, not jsonb: jsonb cannot hold \u0000, which call keys use as a separator.
      await pool.query(sql.save, [runId, saved.revision, JSON.stringify(saved.state)])
    },
    async reserve(reservations: readonly BudgetReservation[]): Promise<ReserveResult> {
      await setup()
      const first = reservations[0]
      if (first === undefined) return { reserved: true }
      if (reservations.length === 1) {
        const used = await reserveOne(pool, sql, first)
        return used === undefined
          ? { reserved: true }
          : { reserved: false, reservation: first, used }
      }
      // In one order, so two transactions never wait on each other's rows (no deadlock).
      const sorted = [...reservations].sort(order)
      let refused: ReserveResult = { reserved: true }
      await transaction(async (client) => {
        for (const reservation of sorted) {
          const used = await reserveOne(client, sql, reservation)
          if (used !== undefined) {
            refused = { reserved: false, reservation, used }
            throw refusal
          }
        }
      }).catch((error: unknown) => {
        if (error !== refusal) throw error
      })
      return refused
    },
    async close(): Promise<void> {
      if (owned) await pool.end()
    },
  }
}

/** Thrown inside a reservation transaction to roll it back. */
const refusal = Symbol('refused')
