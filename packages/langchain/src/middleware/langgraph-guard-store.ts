import { type GuardStore, PlanError, type SavedRunState } from '@plan/core'
import { runTakenError, runWriteDecision } from '@plan/core/adapter'

/** What the guard needs of a LangGraph `BaseStore` (`PostgresStore`, `InMemoryStore`, …). */
export interface LangGraphStoreLike {
  get(namespace: string[], key: string): Promise<{ readonly value: Record<string, unknown> } | null>
  put(
    namespace: string[],
    key: string,
    value: Record<string, unknown>,
    index?: false | string[],
  ): Promise<void>
}

// No `_`: PostgresStore refuses SQL LIKE wildcards in namespace labels.
const NAMESPACE = ['plan-guard', 'runs']

/** True for a LangGraph store, as the agent's runtime carries it (`createAgent({ store })`). */
export function isLangGraphStore(value: unknown): value is LangGraphStoreLike {
  if (typeof value !== 'object' || value === null) return false
  const store = value as Partial<Record<'get' | 'put' | 'batch', unknown>>
  return (
    typeof store.get === 'function' &&
    typeof store.put === 'function' &&
    typeof store.batch === 'function'
  )
}

interface StoredRun {
  readonly revision: number
  readonly writer: string | null
  /** The state as JSON text: a store on `jsonb` cannot hold the `\u0000` of call keys. */
  readonly state: string
}

function storedRun(value: Record<string, unknown> | undefined): StoredRun | undefined {
  if (value === undefined) return undefined
  const { revision, writer, state } = value
  const valid =
    typeof revision === 'number' &&
    Number.isSafeInteger(revision) &&
    (typeof writer === 'string' || writer === null) &&
    typeof state === 'string'
  if (!valid) {
    throw new PlanError('The @plan run in the LangGraph store is not one the middleware wrote.', {
      code: 'state_corrupt',
    })
  }
  return { revision, writer, state }
}

const stores = new WeakMap<LangGraphStoreLike, GuardStore>()

/**
 * A {@link GuardStore} on the agent's LangGraph store: each run's state is an item of the
 * namespace `plan_guard/runs`, written before every tool call starts, so a run resumed after a
 * crash counts the call that was running. A LangGraph store has no compare-and-set: a save reads
 * the item, applies the one-writer rule, then writes it, which refuses a duplicated worker that
 * saves after the other's write but not one that saves in the same instant (`@plan/postgres`
 * refuses both). It has no atomic counter either, so a shared budget (`budgets.shared`) denies
 * its calls (`store_failed`): use `@plan/postgres` for those.
 */
export function guardStoreFromLangGraph(base: LangGraphStoreLike): GuardStore {
  const known = stores.get(base)
  if (known !== undefined) return known
  const store: GuardStore = {
    async load(runId) {
      const run = storedRun((await base.get(NAMESPACE, runId))?.value)
      if (run === undefined) return undefined
      return { revision: run.revision, state: JSON.parse(run.state) as unknown }
    },
    async save(runId: string, saved: SavedRunState) {
      const current = storedRun((await base.get(NAMESPACE, runId))?.value)
      const head =
        current === undefined
          ? undefined
          : { revision: current.revision, writerId: current.writer ?? undefined }
      const decision = runWriteDecision(head, saved)
      if (decision === 'conflict') throw runTakenError(runId)
      if (decision === 'ignore') return
      const value = {
        revision: saved.revision,
        writer: saved.writer?.id ?? null,
        state: JSON.stringify(saved.state),
      }
      await base.put(NAMESPACE, runId, value, false)
    },
    async reserve(reservations) {
      if (reservations.length === 0) return { reserved: true }
      throw new Error(
        'a LangGraph store cannot count shared budgets atomically; give the middleware a store from @plan/postgres',
      )
    },
  }
  stores.set(base, store)
  return store
}
