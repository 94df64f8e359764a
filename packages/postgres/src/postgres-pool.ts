/** The result of a query: its rows. */
export interface PostgresQueryResult {
  readonly rows: readonly Record<string, unknown>[]
  /** How many rows the statement wrote or deleted (`pg` sets it). */
  readonly rowCount?: number | null
}

/** What the store needs of a connection: `pg`'s `PoolClient` has it. */
export interface PostgresClient {
  query(text: string, values?: readonly unknown[]): Promise<PostgresQueryResult>
  /** Gives the connection back; with an error, the pool closes it instead of reusing it. */
  release(error?: Error | boolean): void
  /** `pg` emits `error` on a connection the server ended; the store listens while it holds one. */
  on?(event: 'error', listener: (error: Error) => void): unknown
  removeListener?(event: 'error', listener: (error: Error) => void): unknown
}

/** What the store needs of a pool: `pg`'s `Pool` has it. */
export interface PostgresPool {
  query(text: string, values?: readonly unknown[]): Promise<PostgresQueryResult>
  connect(): Promise<PostgresClient>
  end(): Promise<void>
  /**
   * `pg` emits `error` for an idle connection the server ended, and `connect` for each new
   * connection; the store listens to both, so that an ended connection never ends the process.
   */
  on?(event: 'error', listener: (error: Error) => void): unknown
  on?(event: 'connect', listener: (client: PostgresClient) => void): unknown
}
