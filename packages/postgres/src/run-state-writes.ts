import { randomUUID } from 'node:crypto'
import type { SavedRunChanges, SavedRunState } from '@plan/core'
import { runTakenError } from '@plan/core/adapter'
import type { PostgresClient, PostgresPool } from './postgres-pool.js'
import { applyChanges, diffStates } from './run-state-changes.js'
import { deleteInBatches, readChanges, readParts, writeParts } from './state-parts.js'
import type { storeSql } from './store-sql.js'
import { READ_ONE_SNAPSHOT, rollBack, type Transaction } from './store-transaction.js'

type StoreSql = ReturnType<typeof storeSql>
/** Called after each statement of a call that makes many: the call is still under way. */
type Progress = () => void
const noProgress: Progress = () => undefined

/** A run's row as it was read: its full state's text and the changes saved after it. */
interface LoadedRow {
  readonly revision: number
  readonly text: string
  readonly changes: readonly string[]
}

/** A state kept as the JSON text it was read or written as, parsed when first asked for. */
type HeadState = () => Record<string, unknown> | undefined

/** What this process last wrote or read of a run: the base of its next save's changes. */
interface RunHead {
  readonly revision: number
  /** The state, to diff the next save against; none after a save of changes made elsewhere. */
  readonly state: HeadState | undefined
  /** Size of the full state in the row, and of the changes saved since. */
  readonly baseBytes: number
  readonly changeBytes: number
}

/** Runs whose head this process keeps; past it the least recently saved is forgotten. */
const MAX_HEADS = 256

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The state a full state's text and the changes saved after it add up to. */
function rebuild(text: string, changes: readonly string[]): unknown {
  let state: unknown = JSON.parse(text)
  for (const entry of changes) {
    if (!isRecord(state)) throw new Error('the saved changes apply to no object')
    state = applyChanges(state, JSON.parse(entry))
  }
  return state
}

/**
 * The state of `text` and `changes`, parsed on the first call: a run saved through
 * `saveChanges` never needs it, and a copy of a large state costs more than its text.
 */
function lazyState(text: string, changes: readonly string[] = []): HeadState {
  let source: { readonly text: string; readonly changes: readonly string[] } | undefined = {
    text,
    changes,
  }
  let state: Record<string, unknown> | undefined
  return () => {
    if (source !== undefined) {
      const built = rebuild(source.text, source.changes)
      source = undefined
      state = isRecord(built) ? built : undefined
    }
    return state
  }
}

/**
 * The run states of one store: a save writes what changed since this process's last save or
 * load of the run (the step, the counters, the output), not the whole state; once the changes
 * outgrow the state (so a load reads at most twice the state), it writes the full state again,
 * however many saves that took, so the cost of a save does not grow with the state. A full
 * state longer than `chunkSize` characters is written as parts of at most that size, one
 * statement each, in the transaction of its compare-and-set, and read back the same way from
 * one snapshot. Saves of one run are written one after another, in the order they were made.
 */
export class RunStateWrites {
  readonly #heads = new Map<string, RunHead>()
  readonly #queues = new Map<string, Promise<void>>()
  readonly #deletions = new Set<Promise<void>>()

  constructor(
    private readonly pool: PostgresPool,
    private readonly transaction: Transaction,
    private readonly sql: StoreSql,
    private readonly chunkSize: number,
  ) {}

  async load(runId: string, progress = noProgress): Promise<SavedRunState | undefined> {
    const row = await this.#readRow(runId, progress)
    if (row === undefined) return undefined
    const { revision, text, changes } = row
    const state = rebuild(text, changes)
    if (isRecord(state)) {
      this.#remember(runId, {
        revision,
        state: lazyState(text, changes),
        baseBytes: text.length,
        changeBytes: changes.reduce((sum, entry) => sum + entry.length, 0),
      })
    }
    return { revision, state }
  }

  /** The run's full state and its changes: in one statement, or else in one snapshot. */
  async #readRow(runId: string, progress: Progress): Promise<LoadedRow | undefined> {
    const row = (await this.pool.query(this.sql.load, [runId])).rows[0]
    if (row === undefined) return undefined
    if (row.in_parts !== true) {
      const changes = JSON.parse(String(row.changes)) as string[]
      return { revision: Number(row.revision), text: String(row.state), changes }
    }
    return this.transaction((client) => this.#read(client, runId, progress), READ_ONE_SNAPSHOT)
  }

  /** The run's row, its parts and its changes, read in `client`'s one snapshot. */
  async #read(
    client: PostgresClient,
    runId: string,
    progress: Progress,
  ): Promise<LoadedRow | undefined> {
    const row = (await client.query(this.sql.loadRow, [runId])).rows[0]
    if (row === undefined) return undefined
    const revision = Number(row.revision)
    const text =
      row.in_parts !== true
        ? String(row.state)
        : await readParts(
            client,
            this.sql,
            { runId, partsId: String(row.parts_id), count: Number(row.parts) },
            progress,
          )
    const base = Number(row.base)
    const source = { runId, base, revision }
    const changes = await readChanges(client, this.sql, source, this.chunkSize, progress)
    return { revision, text, changes }
  }

  save(runId: string, saved: SavedRunState, progress = noProgress): Promise<void> {
    return this.#queued(runId, () => this.#write(runId, saved, progress))
  }

  /**
   * Writes changes a guard made since a revision this process wrote or read (or an earlier
   * one); false when it holds no such revision of the run, when they are longer than a part,
   * or once the changes saved since the full state outgrow it (the caller then saves the full
   * state).
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
    // Changes longer than a part: the full state, in parts, keeps every statement bounded.
    if (changes.length > this.chunkSize) return false
    try {
      const written = await this.#saveChanges(runId, saved, head.revision, changes)
      if (written) {
        this.#remember(runId, {
          ...head,
          revision: saved.revision,
          state: undefined,
          changeBytes: head.changeBytes + changes.length,
        })
      }
      return written
    } catch (error) {
      this.#heads.delete(runId)
      throw error
    }
  }

  async #write(runId: string, saved: SavedRunState, progress: Progress): Promise<void> {
    const text = JSON.stringify(saved.state)
    // The deadline is for the database: the time this process took to write the text is not.
    progress()
    const head = this.#heads.get(runId)
    try {
      const before =
        head !== undefined && this.#changesFit(head, saved) ? head.state?.() : undefined
      const state: unknown = before === undefined ? undefined : JSON.parse(text)
      if (head !== undefined && before !== undefined && isRecord(state)) {
        const changes = JSON.stringify(diffStates(before, state))
        const fits = changes.length <= this.chunkSize
        if (fits && (await this.#saveChanges(runId, saved, head.revision, changes))) {
          this.#remember(runId, {
            ...head,
            revision: saved.revision,
            state: () => state,
            changeBytes: head.changeBytes + changes.length,
          })
          return
        }
      }
      const written = await this.#saveFull(runId, saved, text, progress)
      // The text of an object: only an object takes changes.
      if (written && text.startsWith('{')) {
        this.#remember(runId, {
          revision: saved.revision,
          state: isRecord(state) ? () => state : lazyState(text),
          baseBytes: text.length,
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
    return saved.revision > head.revision && head.changeBytes < head.baseBytes
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
  async #saveFull(
    runId: string,
    saved: SavedRunState,
    text: string,
    progress: Progress,
  ): Promise<boolean> {
    const writer = saved.writer
    const written =
      text.length <= this.chunkSize
        ? (await this.pool.query(this.sql.save, this.#row(runId, saved, text))).rows.length > 0
        : await this.#saveParts(runId, saved, text, progress)
    if (written) {
      this.#forget(runId, saved.revision)
      return true
    }
    if (writer === undefined) return false
    // Not written: a late write of this writer (ignored), or the run is another writer's.
    const current = await this.pool.query(this.sql.writerOf, [runId])
    if (current.rows[0]?.writer === writer.id) return false
    throw runTakenError(runId)
  }

  /**
   * Deletes, after the call, what no load reads once the full state of `revision` committed:
   * the changes it holds and the parts of the state before. Best effort, and safe beside any
   * later save: those write only changes after `revision`, and parts no other statement sees
   * before the row names them.
   */
  #forget(runId: string, revision: number): void {
    const { dropChanges, dropParts } = this.sql
    const deletions = deleteInBatches(this.pool, dropChanges, [runId, revision], 1024)
      .then(() => deleteInBatches(this.pool, dropParts, [runId], 16))
      .catch(() => undefined)
    this.#deletions.add(deletions)
    void deletions.then(() => this.#deletions.delete(deletions))
  }

  /** Resolves once the deletions under way have ended. */
  async deletionsEnded(): Promise<void> {
    while (this.#deletions.size > 0) await Promise.all(this.#deletions)
  }

  /**
   * The full state as parts, then the compare-and-set of the row that names them, in one
   * transaction: a save that loses, fails or dies midway leaves the row and its parts as they
   * were, and no snapshot sees its parts before the row names them.
   */
  async #saveParts(
    runId: string,
    saved: SavedRunState,
    text: string,
    progress: Progress,
  ): Promise<boolean> {
    const partsId = randomUUID()
    return this.transaction(async (client) => {
      const target = { runId, partsId, size: this.chunkSize }
      const parts = await writeParts(client, this.sql, target, text, progress)
      const result = await client.query(this.sql.save, this.#row(runId, saved, '', parts, partsId))
      if (result.rows.length === 0) throw rollBack
      return true
    }).catch((error: unknown) => {
      if (error === rollBack) return false
      throw error
    })
  }

  /** The values of the `save` statement. Text, not jsonb: jsonb cannot hold \u0000. */
  #row(
    runId: string,
    saved: SavedRunState,
    text: string,
    parts: number | null = null,
    partsId: string | null = null,
  ): unknown[] {
    const writer = saved.writer
    const loaded = writer?.loadedRevision ?? 0
    return [runId, saved.revision, text, writer?.id ?? null, loaded, parts, partsId]
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
