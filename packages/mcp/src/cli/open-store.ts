import type { GuardStore, RunKeys } from '@plan/core'
import type { ProxyCommand } from './parse-cli-args.js'

/** The guard store of `--store`, with the run it keeps. */
export interface OpenedStore {
  readonly store: GuardStore
  readonly runId: string
  readonly keys: RunKeys
  close(): Promise<void>
}

/**
 * The PostgreSQL guard store named by `--store`, or undefined without one. `@plan/postgres`
 * (and its driver) is loaded only then. Without `--run-id`, each process is a run of its own:
 * its budgets start afresh, the shared budgets still hold.
 */
export async function openStore(command: ProxyCommand): Promise<OpenedStore | undefined> {
  if (command.store === undefined) return undefined
  const { createPostgresGuardStore } = await import('@plan/postgres')
  const store = createPostgresGuardStore({ connectionString: command.store })
  return {
    store,
    runId: command.runId ?? `plan-mcp-${globalThis.crypto.randomUUID()}`,
    keys: command.keys,
    close: () => store.close(),
  }
}
