import pg, { type PoolConfig } from 'pg'
import type { PostgresStoreTimeouts } from './store-timeout-options.js'

/** The `pg` pool settings that make the server and the driver keep to `timeouts`. */
export function poolConfig(
  connectionString: string,
  timeouts: Required<PostgresStoreTimeouts>,
): PoolConfig {
  return {
    connectionString,
    connectionTimeoutMillis: timeouts.connectMs,
    statement_timeout: timeouts.statementMs,
    lock_timeout: timeouts.lockMs,
    // A server that stops answering mid-query: the driver gives up a little after the server would.
    query_timeout: timeouts.statementMs + 1_000,
    idle_in_transaction_session_timeout: timeouts.statementMs * 2,
    keepAlive: true,
    Client: ListeningClient,
  }
}

/**
 * A `pg` client that always has an `error` listener: a connection the server ends while it is
 * being opened or used emits `error` (sometimes twice), which would otherwise end the process.
 * The client still fails the query or connection it was on, and the pool drops it.
 */
class ListeningClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config)
    this.on('error', ignoreConnectionError)
  }
}

/** Listener for `error` of a connection: the call that used it fails with its own error. */
export function ignoreConnectionError(): void {}

/**
 * `work`, or a rejection once `ms` have passed. The work left behind goes on (and releases its
 * connection); its late failure is not reported twice.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  return withProgressDeadline(() => work, ms, what)
}

/**
 * `work`, or a rejection once `ms` have passed since it began or since it last called its
 * `progress` (a statement of many that made it through): a write of many bounded statements
 * may take longer than `ms` in all, a statement that does not answer may not.
 */
export function withProgressDeadline<T>(
  work: (progress: () => void) => Promise<T>,
  ms: number,
  what: string,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  let fail: (error: Error) => void = () => undefined
  const deadline = new Promise<never>((_, reject) => {
    fail = reject
  })
  let settled = false
  const arm = () => {
    if (settled) return
    clearTimeout(timer)
    timer = setTimeout(() => {
      fail(new Error(`PostgreSQL did not answer ${what} within ${ms} ms`))
    }, ms)
  }
  const running = work(arm)
  running.catch(() => undefined)
  // After `work` began: a deadline of its own that it set up first passes first.
  arm()
  return Promise.race([running, deadline]).finally(() => {
    settled = true
    clearTimeout(timer)
  })
}
