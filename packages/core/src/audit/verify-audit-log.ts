import { sha256 } from '../util/canonical-json.js'
import type { AuditHead } from './audit-chain.js'
import { AUDIT_GENESIS } from './audit-event.js'

/** Why a log does not verify. */
export type AuditLogProblem =
  /** A line is not a log record (edited, or cut short in the middle of the log). */
  | 'malformed'
  /** The last line is cut short: the writer died while writing it. */
  | 'truncated'
  /** A line's number does not follow the previous one: lines were deleted or reordered. */
  | 'sequence'
  /** A line does not carry the hash of the line before it: one of them was changed. */
  | 'broken_link'
  /** The log does not end where the expected head says: lines were cut off at the end. */
  | 'head_mismatch'

/** The answer of {@link verifyAuditLog}. */
export type AuditLogVerification =
  | {
      readonly valid: true
      /** Number of records. */
      readonly count: number
      /** The last record's number and hash (seq 0 and the genesis for an empty log). */
      readonly head: AuditHead
    }
  | {
      readonly valid: false
      /** 1-based number of the first line that breaks the chain. */
      readonly line: number
      readonly problem: AuditLogProblem
      readonly message: string
    }

/** Options for {@link verifyAuditLog}. */
export interface VerifyAuditLogOptions {
  /**
   * The head recorded somewhere else (e.g. the last hash a monitor saw). Without it, lines
   * deleted from the very end, or a last line rewritten as a whole, cannot be detected.
   */
  readonly expectedHead?: AuditHead
}

const HASH = /^[0-9a-f]{64}$/

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Checks a JSON-lines audit log: every line parses, numbers run 1, 2, 3… and each line carries
 * the SHA-256 of the line before it (the first, a fixed genesis). Reports the first broken or
 * missing link: an edited, deleted, inserted or reordered line, a line cut short in the middle,
 * or a truncated last line (text that does not end with a newline).
 *
 * @example
 * ```ts
 * const result = verifyAuditLog(readFileSync('audit.jsonl', 'utf8'))
 * if (!result.valid) console.error(`line ${result.line}: ${result.message}`)
 * ```
 */
export function verifyAuditLog(
  log: string | readonly string[],
  options: VerifyAuditLogOptions = {},
): AuditLogVerification {
  let lines: readonly string[]
  let unterminated = false
  if (typeof log === 'string') {
    const parts = log.split('\n')
    // A complete log ends with a newline, so the last part is empty.
    const tail = parts.pop() as string
    if (tail !== '') {
      parts.push(tail)
      unterminated = true
    }
    lines = parts
  } else {
    lines = log
  }
  let head: AuditHead = { seq: 0, hash: AUDIT_GENESIS }
  for (let index = 0; index < lines.length; index += 1) {
    const text = lines[index] as string
    const number = index + 1
    const last = index === lines.length - 1
    const fail = (problem: AuditLogProblem, message: string): AuditLogVerification => ({
      valid: false,
      line: number,
      problem,
      message,
    })
    let record: unknown
    try {
      record = JSON.parse(text)
    } catch {
      record = undefined
    }
    if (
      !isRecord(record) ||
      !Number.isSafeInteger(record.seq) ||
      typeof record.time !== 'string' ||
      typeof record.prev !== 'string' ||
      !HASH.test(record.prev) ||
      !isRecord(record.event) ||
      typeof record.event.type !== 'string'
    ) {
      return last && (unterminated || record === undefined)
        ? fail('truncated', `Line ${number}, the last, is cut short: the log was truncated.`)
        : fail('malformed', `Line ${number} is not an audit record.`)
    }
    if (last && unterminated)
      return fail('truncated', `Line ${number}, the last, has no newline: the log was truncated.`)
    if (record.seq !== head.seq + 1)
      return fail(
        'sequence',
        `Line ${number} has number ${String(record.seq)} where ${head.seq + 1} was expected: lines were deleted, inserted or reordered.`,
      )
    if (record.prev !== head.hash)
      return fail(
        'broken_link',
        number === 1
          ? 'The first line does not start the chain: lines before it were removed.'
          : `Line ${number} does not carry the hash of line ${number - 1}: one of them was changed.`,
      )
    head = { seq: head.seq + 1, hash: sha256(text) }
  }
  const expected = options.expectedHead
  if (expected !== undefined && (expected.seq !== head.seq || expected.hash !== head.hash))
    return {
      valid: false,
      line: Math.min(lines.length, expected.seq) + (expected.seq > lines.length ? 1 : 0),
      problem: 'head_mismatch',
      message: `The log ends at line ${head.seq}, not at the expected line ${expected.seq} with hash ${expected.hash}: lines were cut off or rewritten at the end.`,
    }
  return { valid: true, count: lines.length, head }
}
