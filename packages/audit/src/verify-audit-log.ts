import type { PlanIssue } from '@plan/core'
import { errorMessage } from '@plan/core/adapter'
import { rfc8785Json } from '@plan/json'
import { stringAt } from '@plan/shell/common'
import type { AuditHead } from './audit-chain.js'
import { type AuditKey, auditGenesis, auditKeyBytes, hashAuditLine } from './audit-key.js'
import { type AuditLine, auditLineSchema } from './audit-line-schema.js'

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
  /** The input is not a log at all (not text or an array of lines), or the key is unusable. */
  | 'not_a_log'

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
      /** The same finding as one `audit_invalid` issue. */
      readonly issues: readonly PlanIssue[]
    }

/** Options for {@link verifyAuditLog}. */
export interface VerifyAuditLogOptions {
  /**
   * The head recorded somewhere else (e.g. the last hash a monitor saw). Without it, lines
   * deleted from the very end, or a last line rewritten as a whole, cannot be detected.
   */
  readonly expectedHead?: AuditHead
  /** The key the log was chained with (`key` of the audit sink), for a keyed log. */
  readonly key?: AuditKey
}

function refused(line: number, problem: AuditLogProblem, message: string): AuditLogVerification {
  const hint =
    problem === 'not_a_log'
      ? 'Pass the log text, or its lines as an array of strings, and a key of 32 bytes or more.'
      : 'Treat the log as tampered with: compare it with a copy kept elsewhere.'
  return {
    valid: false,
    line,
    problem,
    message,
    issues: [{ code: 'audit_invalid', message, path: line > 0 ? [line] : [], hint }],
  }
}

/** The log's lines and whether the text lacks its final newline, or undefined for a non-log. */
function readLines(log: unknown): { lines: string[]; unterminated: boolean } | undefined {
  if (typeof log === 'string') {
    const lines = log.split('\n')
    // A complete log ends with a newline, so the last part is empty.
    const tail = lines.pop() ?? ''
    if (tail !== '') lines.push(tail)
    return { lines, unterminated: tail !== '' }
  }
  if (!Array.isArray(log)) return undefined
  const lines: string[] = []
  for (let index = 0; index < log.length; index += 1) {
    const line: unknown = log[index]
    if (typeof line !== 'string') return undefined
    lines.push(line)
  }
  return { lines, unterminated: false }
}

/**
 * Checks a JSON-lines audit log: every line parses, numbers run 1, 2, 3… and each line carries
 * the SHA-256 of the line before it (the first, a fixed genesis) — or, with `key`, their
 * HMAC-SHA-256, so an edited log re-chained without the key is caught. Reports the first broken
 * or missing link: an edited, deleted, inserted or reordered line, a line cut short in the
 * middle, or a truncated last line (text that does not end with a newline). Never throws:
 * input that is not a log is `not_a_log`.
 *
 * @example
 * ```ts
 * const result = verifyAuditLog(readFileSync('audit.jsonl', 'utf8'), { key: process.env.AUDIT_KEY })
 * if (!result.valid) console.error(`line ${result.line}: ${result.message}`)
 * ```
 */
export function verifyAuditLog(
  log: string | readonly string[],
  options: VerifyAuditLogOptions = {},
): AuditLogVerification {
  try {
    return verifyLines(log, options)
  } catch (error) {
    return refused(0, 'not_a_log', `The log cannot be read: ${errorMessage(error)}.`)
  }
}

/** The value of a JSON text, or undefined when it is not JSON. */
function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) }
  } catch {
    return undefined
  }
}

interface LineContext {
  readonly text: string
  readonly number: number
  readonly last: boolean
  readonly unterminated: boolean
  readonly head: AuditHead
  readonly keyed: boolean
}

/** Why one line breaks the chain after `head`, or undefined when it continues it. */
function lineRefusal(line: LineContext): AuditLogVerification | undefined {
  const { number, head } = line
  const json = parseJson(line.text)
  const parsed = json === undefined ? undefined : auditLineSchema.safeParse(json.value)
  if (parsed?.success !== true) {
    return line.last && (line.unterminated || json === undefined)
      ? refused(
          number,
          'truncated',
          `Line ${number}, the last, is cut short: the log was truncated.`,
        )
      : refused(number, 'malformed', `Line ${number} is not an audit record.`)
  }
  if (line.last && line.unterminated)
    return refused(
      number,
      'truncated',
      `Line ${number}, the last, has no newline: the log was truncated.`,
    )
  const record: AuditLine = parsed.data
  if (record.version !== undefined && rfc8785Json(json?.value) !== line.text)
    return refused(
      number,
      'malformed',
      `Line ${number} is a version ${record.version} record but not in RFC 8785 canonical form.`,
    )
  if (record.seq !== head.seq + 1)
    return refused(
      number,
      'sequence',
      `Line ${number} has number ${String(record.seq)} where ${head.seq + 1} was expected: lines were deleted, inserted or reordered.`,
    )
  if (record.prev !== head.hash)
    return refused(
      number,
      'broken_link',
      number === 1
        ? `The first line does not start the chain: lines before it were removed${line.keyed ? ', or it was chained with another key' : ', or the log is keyed'}.`
        : `Line ${number} does not carry the hash of line ${number - 1}: one of them was changed${line.keyed ? ' (or the log was chained with another key)' : ''}.`,
    )
  return undefined
}

function verifyLines(log: unknown, options: VerifyAuditLogOptions): AuditLogVerification {
  const read = readLines(log)
  if (read === undefined)
    return refused(0, 'not_a_log', 'The log is neither text nor an array of text lines.')
  const settings = typeof options === 'object' && options !== null ? options : {}
  const key = auditKeyBytes(settings.key)
  const { lines, unterminated } = read
  let head: AuditHead = { seq: 0, hash: auditGenesis(key) }
  for (let index = 0; index < lines.length; index += 1) {
    const text = stringAt(lines, index)
    const last = index === lines.length - 1
    const context = { text, number: index + 1, last, unterminated, head, keyed: key !== undefined }
    const refusal = lineRefusal(context)
    if (refusal !== undefined) return refusal
    head = { seq: head.seq + 1, hash: hashAuditLine(text, key) }
  }
  const expected = settings.expectedHead
  if (expected !== undefined && (expected.seq !== head.seq || expected.hash !== head.hash))
    return refused(
      Math.min(lines.length, expected.seq) + (expected.seq > lines.length ? 1 : 0),
      'head_mismatch',
      `The log ends at line ${head.seq}, not at the expected line ${expected.seq} with hash ${expected.hash}: lines were cut off or rewritten at the end.`,
    )
  return { valid: true, count: lines.length, head }
}
