import pg from 'pg'
import type { PostgresClient, PostgresPool, PostgresQueryResult } from '../postgres-pool.js'

/** A statement as a watched pool is about to send it, and the connection it goes on. */
export interface WatchedStatement {
  readonly text: string
  readonly values: readonly unknown[]
  /** The server process of the connection (`pg_backend_pid()`), for a statement in a transaction. */
  readonly backend?: () => Promise<number>
}

/** What a watched pool does around each statement. */
export interface Watch {
  /** Before the statement is sent: may record it, wait, or end the connection. */
  readonly before?: (statement: WatchedStatement) => Promise<void> | void
  /** Once its result came: the characters of the text values of its rows. */
  readonly after?: (statement: WatchedStatement, receivedChars: number) => void
}

function receivedChars(result: PostgresQueryResult): number {
  let chars = 0
  for (const row of result.rows) {
    for (const value of Object.values(row)) if (typeof value === 'string') chars += value.length
  }
  return chars
}

/**
 * A real `pg` pool whose statements (on the pool and on connections it hands out) go through
 * `watch`.
 */
export function watchedPool(url: string, watch: Watch): PostgresPool & { readonly real: pg.Pool } {
  const real = new pg.Pool({ connectionString: url })
  real.on('error', () => undefined)
  const send = async (
    target: pg.Pool | pg.PoolClient,
    text: string,
    values: readonly unknown[] | undefined,
    backend?: () => Promise<number>,
  ): Promise<PostgresQueryResult> => {
    const statement = { text, values: values ?? [], ...(backend === undefined ? {} : { backend }) }
    await watch.before?.(statement)
    const result = await target.query(text, values === undefined ? undefined : [...values])
    watch.after?.(statement, receivedChars(result))
    return result
  }
  return {
    real,
    query: (text, values) => send(real, text, values),
    async connect(): Promise<PostgresClient> {
      const client = await real.connect()
      client.on('error', () => undefined)
      let pid: number | undefined
      const backend = async () => {
        pid ??= Number((await client.query('SELECT pg_backend_pid() AS pid')).rows[0]?.pid)
        return pid
      }
      return {
        query: (text, values) => send(client, text, values, backend),
        release: (error) => client.release(error),
        on: (event, listener) => client.on(event, listener),
        removeListener: (event, listener) => client.removeListener(event, listener),
      }
    },
    end: () => real.end(),
  }
}

/** How many characters the values of a statement hold in all. */
export function valueChars(statement: WatchedStatement): number {
  return statement.values.reduce<number>(
    (sum, value) => sum + (typeof value === 'string' ? value.length : String(value).length),
    0,
  )
}
