import type { SavedRunChanges, SavedRunState } from '@plan/core'
import { runTakenError } from '@plan/core/adapter'
import type { PostgresClient, PostgresPool } from './postgres-pool.js'
import { applyChanges, diffStates } from './run-state-changes.js'
import type { storeSql } from './store-sql.js'

type StoreSql = ReturnType<typeof storeSql>
type Transaction = <T>(work: (client: PostgresClient) => Promise<T>) => Promise<T>

/** What this process last wrote or read of a run: the base of its next save's changes. */
interface RunHead {
  readonly revision: number
  /** The state, to diff the next save against; none after a save of changes made elsewhere. */
  readonly state: Record<string, unknown> | undefined
  /** Size of the full state in the row, and of the changes saved since. */
  readonly baseBytes: number
  readonly changeCount: number
  readonly changeBytes: number
}

/** Runs whose head this process keeps; past it the least recently saved is forgotten. */
const MAX_HEADS = 256
/** Changes saved after a full state before the next save writes the full state again. */
const MAX_CHANGES = 4096

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The run states of one store: a save writes what changed since this process's last save or
 * load of the run (the step, the counters, the output), not the whole state; every
 * {@link MAX_CHANGES} saves, or once the changes outgrow the state, it writes the full state
 * again. Saves of one run are written one after another, in the order they were made.
 */
export class RunStateWrites {
  readonly #heads = new Map<string, RunHead>()
  readonly #queues = new Map<string, Promise<void>>()

  constructor(
    private readonly pool: PostgresPool,
    private readonly transaction: Transaction,
    private readonly sql: StoreSql,
  ) {}

  async load(runId: string): Promise<SavedRunState | undefined> {
    const result = await this.pool.query(this.sql.load, [runId])
    const row = result.rows[0]
    if (row === undefined) return undefined
    const text = String(row.state)
    const base: unknown = JSON.parse(text)
    const changes = JSON.parse(String(row.changes)) as string[]
    let state = base
    let changeBytes = 0
    for (const entry of changes) {
      if (!isRecord(state)) throw new Error('the saved changes apply to no object')
      state = applyChanges(state, JSON.parse(entry))
      changeBytes += entry.length
    }
    const revision = Number(row.revision)
    if (isRecord(state)) {
      this.#remember(runId, {
        revision,
        state: structuredClone(state),
        baseBytes: text.length,
        changeCount: changes.length,
        changeBytes,
      })
    }
    return { revision, state }
  }

  save(runId: string, saved: SavedRunState): Promise<void> {
    return this.#queued(runId, () => this.#write(runId, saved))
  }

  /**
   * Writes changes a guard made since a revision this process wrote or read (or an earlier
   * one); false when it holds no such revision of the run, or once the changes saved since the
   * full state outgrow it (the caller then saves the full state).
   */
  saveChanges(runId: string, saved: SavedRunChanges): Promise<boolean> {
    return this.#queued(runId, () => this.#writeChanges(runId, saved))
  }

  #queued<T>(runId: string, write: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(runId) ?? Promise.resolve()
    const next = previous.then(write)
    const settled = next.then(
      () => undefined,
      () => undefined,
    )
    this.#queues.set(runId, settled)
    void settled.then(() => {
      if (this.#queues.get(runId) === settled) this.#queues.delete(runId)
    })
    return next
  }

  async #writeChanges(runId: string, saved: SavedRunChanges): Promise<boolean> {
    const head = this.#heads.get(runId)
    if (
      head === undefined ||
      saved.changes.since > head.revision ||
      saved.revision <= head.revision ||
      head.changeBytes >= head.baseBytes
    )
      return false
    const { since: _since, ...operations } = saved.changes
    const changes = JSON.stringify(operations)
    try {
      const written = await this.#saveChanges(runId, saved, head.revision, changes)
      if (written) {
        this.#remember(runId, {
          ...head,
          revision: saved.revision,
          state: undefined,
          changeCount: head.changeCount + 1,
          changeBytes: head.changeBytes + changes.length,
        })
      }
      return written
    } catch (error) {
      this.#heads.delete(runId)
      throw error
    }
  }

  async #write(runId: string, saved: SavedRunState): Promise<void> {
    const text = JSON.stringify(saved.state)
    const state: unknown = JSON.parse(text)
    const head = this.#heads.get(runId)
    try {
      if (head?.state !== undefined && isRecord(state) && this.#changesFit(head, saved)) {
        const changes = JSON.stringify(diffStates(head.state, state))
        if (await this.#saveChanges(runId, saved, head.revision, changes)) {
          this.#remember(runId, {
            ...head,
            revision: saved.revision,
            state,
            changeCount: head.changeCount + 1,
            changeBytes: head.changeBytes + changes.length,
          })
          return
        }
      }
      const written = await this.#saveFull(runId, saved, text)
      if (written && isRecord(state)) {
        this.#remember(runId, {
          revision: saved.revision,
          state,
          baseBytes: text.length,
          changeCount: 0,
          changeBytes: 0,
        })
      }
    } catch (error) {
      // What the row holds is no longer known here: the next save writes the full state.
      this.#heads.delete(runId)
      throw error
    }
  }

  #changesFit(head: RunHead, saved: SavedRunState): boolean {
    return (
      saved.revision > head.revision &&
      head.changeCount < MAX_CHANGES &&
      head.changeBytes < head.baseBytes
    )
  }

  /** Writes the changes on top of revision `base`; false when the row is not at `base`. */
  async #saveChanges(
    runId: string,
    saved: Pick<SavedRunState, 'revision' | 'writer'>,
    base: number,
    changes: string,
  ): Promise<boolean> {
    const writer = saved.writer
    const values = [runId, saved.revision, writer?.id ?? null, base, writer?.loadedRevision ?? 0]
    return this.transaction(async (client) => {
      const advanced = await client.query(this.sql.advance, values)
      if (advanced.rows.length === 0) return false
      await client.query(this.sql.addChanges, [runId, saved.revision, changes])
      return true
    })
  }

  /** The full state, compare-and-set; false when it was a late write, ignored. */
  async #saveFull(runId: string, saved: SavedRunState, text: string): Promise<boolean> {
    const writer = saved.writer
    // Text, not jsonb: jsonb cannot hold \u0000, which call keys use as a separator.
    const values = [runId, saved.revision, text, writer?.id ?? null, writer?.loadedRevision ?? 0]
    const result = await this.pool.query(this.sql.save, values)
    if (result.rows.length > 0) {
      // The changes before the new full state are no longer read.
      await this.pool.query(this.sql.dropChanges, [runId, saved.revision]).catch(() => undefined)
      return true
    }
    if (writer === undefined) return false
    // Not written: a late write of this writer (ignored), or the run is another writer's.
    const current = await this.pool.query(this.sql.writerOf, [runId])
    if (current.rows[0]?.writer === writer.id) return false
    throw runTakenError(runId)
  }

  #remember(runId: string, head: RunHead): void {
    this.#heads.delete(runId)
    this.#heads.set(runId, head)
    if (this.#heads.size > MAX_HEADS) {
      const oldest = this.#heads.keys().next().value
      if (oldest !== undefined) this.#heads.delete(oldest)
    }
  }
}
