import type { JsonValue } from '../types/json-value.js'
import { MapView } from '../util/map-view.js'
import { StepValues } from '../util/step-values.js'
import type { ExecutionStepResult } from './execution-result.js'

/** A step's result while the run goes on: no status yet while it is being authorized or run. */
export type StepRecord = { -readonly [K in keyof ExecutionStepResult]?: ExecutionStepResult[K] } & {
  attempts: number
}

/** The slot of a `done` step kept in the columns; its output is in `#outputs`. */
const IN_COLUMNS: StepRecord = Object.freeze({ attempts: 0 })

/**
 * A run's step records by step id: an object while its step goes on; a step that ends `done` with
 * nothing but an output moves into columns by plan position (attempts, start and end times,
 * output), its record made again when read, with the same fields in the same order.
 */
export class StepRecords extends MapView<StepRecord> {
  /** By position: a record object, or {@link IN_COLUMNS}. */
  readonly #slots = new StepValues<StepRecord>()
  readonly #outputs = new StepValues<JsonValue>()
  #positions: ReadonlyMap<string, number> = new Map()
  #attempts = new Uint32Array(0)
  #startedAt = new Float64Array(0)
  #endedAt = new Float64Array(0)

  get size(): number {
    return this.#slots.size
  }

  /** Keeps the records by position for the steps of a plan (see {@link StepValues.place}). */
  place(ids: readonly string[], positions: ReadonlyMap<string, number>): void {
    const kept = [...this.entries()]
    this.#positions = positions
    this.#attempts = new Uint32Array(ids.length)
    this.#startedAt = new Float64Array(ids.length)
    this.#endedAt = new Float64Array(ids.length)
    const slots = this.#slots
    for (const [id] of kept) slots.delete(id)
    slots.place(ids, positions)
    this.#outputs.place(ids, positions)
    for (const [id, record] of kept) slots.set(id, record)
  }

  get(id: string): StepRecord | undefined {
    const slot = this.#slots.get(id)
    if (slot === undefined) return undefined
    const position = slot === IN_COLUMNS ? this.#positions.get(id) : undefined
    if (position === undefined) return slot
    return {
      attempts: this.#attempts[position] ?? 0,
      startedAt: this.#startedAt[position],
      output: this.#outputs.get(id) ?? null,
      status: 'done',
      endedAt: this.#endedAt[position],
    }
  }

  /** The status of a step's record, without making the record of a step in the columns. */
  statusOf(id: string): StepRecord['status'] {
    const slot = this.#slots.get(id)
    return slot === IN_COLUMNS ? 'done' : slot?.status
  }

  override has(id: string): boolean {
    return this.#slots.has(id)
  }

  set(id: string, record: StepRecord): this {
    this.#outputs.delete(id)
    this.#slots.set(id, record)
    return this
  }

  /**
   * Moves a record that ended `done` into the columns when it holds nothing the columns do not:
   * its fields, in order, are attempts, startedAt, output, status and endedAt.
   */
  compact(id: string, record: StepRecord): void {
    const position = this.#positions.get(id)
    if (position === undefined || record.status !== 'done' || this.#slots.get(id) !== record) return
    const { attempts, startedAt, output, endedAt } = record
    if (startedAt === undefined || output === undefined || endedAt === undefined) return
    if (attempts >>> 0 !== attempts || !hasDoneShape(record)) return
    this.#attempts[position] = attempts
    this.#startedAt[position] = startedAt
    this.#endedAt[position] = endedAt
    this.#outputs.set(id, output)
    this.#slots.set(id, IN_COLUMNS)
  }

  *entries(): MapIterator<[string, StepRecord]> {
    for (const [id] of this.#slots) {
      const record = this.get(id)
      if (record !== undefined) yield [id, record]
    }
  }

  /** The ids alone, without making the records of steps in the columns. */
  override *keys(): MapIterator<string> {
    for (const [id] of this.#slots) yield id
  }
}

const DONE_KEYS = ['attempts', 'startedAt', 'output', 'status', 'endedAt']

/** Whether a record's own keys are those a record made again from the columns has. */
function hasDoneShape(record: StepRecord): boolean {
  let index = 0
  for (const key in record) {
    if (key !== DONE_KEYS[index]) return false
    index += 1
  }
  return index === DONE_KEYS.length
}
