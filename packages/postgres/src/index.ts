export type {
  PostgresGuardStore,
  PostgresGuardStoreOptions,
} from './create-postgres-guard-store.js'
export { createPostgresGuardStore } from './create-postgres-guard-store.js'
export type { PostgresClient, PostgresPool, PostgresQueryResult } from './postgres-pool.js'
