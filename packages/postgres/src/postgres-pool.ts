/** The result of a query: its rows. */
export interface PostgresQueryResult {
  readonly rows: readonly Record<string, unknown>[]
}

/** What the store needs of a connection: `pg`'s `PoolClient` has it. */
export interface PostgresClient {
  query(text: string, values?: readonly unknown[]): Promise<PostgresQueryResult>
  release(): void
}

/** What the store needs of a pool: `pg`'s `Pool` has it. */
export interface PostgresPool {
  query(text: string, values?: readonly unknown[]): Promise<PostgresQueryResult>
  connect(): Promise<PostgresClient>
  end(): Promise<void>
}
