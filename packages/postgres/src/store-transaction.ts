import type { PostgresClient, PostgresPool } from './postgres-pool.js'

/** Thrown inside {@link inTransaction}'s work to roll the transaction back, not as a failure. */
export const rollBack = Symbol('roll back')

/** Starts a transaction whose statements all read one snapshot and write nothing. */
export const READ_ONE_SNAPSHOT = 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'

/** {@link inTransaction} on the store's pool. */
export type Transaction = <T>(
  work: (client: PostgresClient) => Promise<T>,
  begin?: string,
) => Promise<T>

/**
 * `work` in a transaction on a connection of its own (`begin` starts it). An error on the
 * connection while it is held (the server ended it) fails the work, not the process; a
 * connection that failed is closed rather than given back. {@link rollBack} thrown by `work`
 * rolls back and is thrown on.
 */
export async function inTransaction<T>(
  pool: PostgresPool,
  work: (client: PostgresClient) => Promise<T>,
  begin = 'BEGIN',
): Promise<T> {
  const client = await pool.connect()
  let failed: Error | undefined
  const onError = (error: Error) => {
    failed ??= error
  }
  client.on?.('error', onError)
  try {
    await client.query(begin)
    const result = await work(client)
    await client.query('COMMIT')
    return result
  } catch (error) {
    if (error !== rollBack) failed ??= error instanceof Error ? error : new Error(String(error))
    if (failed === undefined) await client.query('ROLLBACK')
    throw error
  } finally {
    client.release(failed ?? undefined)
    client.removeListener?.('error', onError)
  }
}
