// No `pg` here: the store's public types must not need `pg`'s type declarations.

/** How long the store waits for PostgreSQL, in milliseconds; a call that waits longer fails. */
export interface PostgresStoreTimeouts {
  /** To open a connection or get one from the pool. Default 5,000. */
  readonly connectMs?: number
  /** For one statement on the server (`statement_timeout`). Default 5,000. */
  readonly statementMs?: number
  /** For one statement to get a lock (`lock_timeout`). Default 2,000. */
  readonly lockMs?: number
  /**
   * For one call of the store (`load`, `save`, `reserve`), in this process, whatever the
   * server or the pool does: the bound that holds with a pool the store did not make. Default
   * 15,000.
   */
  readonly callMs?: number
}

/** The timeouts with their defaults. */
export function resolveTimeouts(
  timeouts: PostgresStoreTimeouts = {},
): Required<PostgresStoreTimeouts> {
  const resolved = {
    connectMs: timeouts.connectMs ?? 5_000,
    statementMs: timeouts.statementMs ?? 5_000,
    lockMs: timeouts.lockMs ?? 2_000,
    callMs: timeouts.callMs ?? 15_000,
  }
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new RangeError(`timeouts.${name} must be a positive whole number of milliseconds.`)
    }
  }
  return resolved
}
