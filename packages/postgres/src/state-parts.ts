import type { PostgresClient } from './postgres-pool.js'
import type { storeSql } from './store-sql.js'

type StoreSql = ReturnType<typeof storeSql>

/** The most changes read in one statement when a run is loaded. */
const CHANGES_PER_READ = 8192

/**
 * `text` cut into pieces of at most `size` characters (`size` >= 2), never between the two
 * halves of a surrogate pair (PostgreSQL would store each half as U+FFFD).
 */
export function* chunksOf(text: string, size: number): Generator<string> {
  let start = 0
  while (start < text.length) {
    let end = Math.min(start + size, text.length)
    const last = text.charCodeAt(end - 1)
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1
    yield text.slice(start, end)
    start = end
  }
}

/** Writes `text` as parts of `partsId`, one statement each; the number of parts. */
export async function writeParts(
  client: PostgresClient,
  sql: StoreSql,
  target: { readonly runId: string; readonly partsId: string; readonly size: number },
  text: string,
  progress: () => void,
): Promise<number> {
  let part = 0
  for (const body of chunksOf(text, target.size)) {
    await client.query(sql.addPart, [target.runId, target.partsId, part, body])
    part += 1
    progress()
  }
  return part
}

/** The text of the `count` parts of `partsId`, one statement each; fails on a missing part. */
export async function readParts(
  client: PostgresClient,
  sql: StoreSql,
  source: { readonly runId: string; readonly partsId: string; readonly count: number },
  progress: () => void,
): Promise<string> {
  const bodies: string[] = []
  for (let part = 0; part < source.count; part += 1) {
    const result = await client.query(sql.loadPart, [source.runId, source.partsId, part])
    const row = result.rows[0]
    if (row === undefined) {
      throw new Error(`part ${part} of ${source.count} of the saved state of a run is missing`)
    }
    bodies.push(String(row.body))
    progress()
  }
  return bodies.join('')
}

/**
 * The changes saved after revision `base` up to `revision`, in order, a page of about `size`
 * characters (or {@link CHANGES_PER_READ} changes) at a time.
 */
export async function readChanges(
  client: PostgresClient,
  sql: StoreSql,
  source: { readonly runId: string; readonly base: number; readonly revision: number },
  size: number,
  progress: () => void,
): Promise<string[]> {
  const changes: string[] = []
  const { runId, revision } = source
  let after = source.base
  for (;;) {
    const values = [runId, after, revision, CHANGES_PER_READ, size]
    const page = await client.query(sql.loadChanges, values)
    progress()
    if (page.rows.length === 0) return changes
    for (const row of page.rows) {
      changes.push(String(row.changes))
      after = Number(row.revision)
    }
  }
}

/**
 * Runs a `DELETE` whose last value is its `LIMIT` until it deletes fewer rows than that: the
 * parts a run's row no longer names (16 at a time), or the changes a full state holds (1,024).
 */
export async function deleteInBatches(
  client: Pick<PostgresClient, 'query'>,
  statement: string,
  values: readonly unknown[],
  perStatement: number,
): Promise<void> {
  for (;;) {
    const result = await client.query(statement, [...values, perStatement])
    if (result.rowCount !== perStatement) return
  }
}
