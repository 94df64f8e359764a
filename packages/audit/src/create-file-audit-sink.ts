import {
  closeSync,
  fstatSync,
  fsyncSync,
  openSync,
  readFileSync,
  readSync,
  writeSync,
} from 'node:fs'
import { type AuditSink, PlanError } from '@plan/core'
import { errorMessage } from '@plan/core/adapter'
import { isRecord } from '@plan/shell/common'
import { type AuditHead, createAuditChain } from './audit-chain.js'
import { type AuditKey, auditGenesis, auditKeyBytes, hashAuditLine } from './audit-key.js'
import { verifyAuditLog } from './verify-audit-log.js'

/** An audit sink backed by a file; close it when the run is over. */
export interface FileAuditSink extends AuditSink {
  readonly path: string
  /** The last line written (or found when the file was opened). */
  readonly head: AuditHead
  close(): void
}

/** Options for {@link createFileAuditSink}. */
export interface FileAuditSinkOptions {
  /** fsync after every line, so a decision survives a crash of the machine too. Default true. */
  readonly fsync?: boolean
  /** Verify the whole existing log before appending to it. Default false (only the last line is read). */
  readonly verify?: boolean
  /** Clock, for tests. Defaults to `Date.now`. */
  readonly now?: () => number
  /**
   * Keys the chain with HMAC-SHA-256: an edited and re-chained log then no longer verifies
   * without the key. Keep the key where the agent cannot read it; verify with the same `key`.
   */
  readonly key?: AuditKey
}

const CHUNK = 64 * 1024

function failure(message: string, cause?: unknown): PlanError {
  return new PlanError(message, {
    issues: [{ code: 'audit_failed', message, path: [], hint: 'Repair or rotate the audit log.' }],
    cause,
  })
}

/** Reads the last line of an open file, which must end with a newline. */
function readLastLine(fd: number, size: number): string {
  const last = Buffer.alloc(1)
  readSync(fd, last, 0, 1, size - 1)
  if (last[0] !== 0x0a) throw failure('The audit log ends in a truncated line.')
  const chunks: Buffer[] = []
  let position = size - 1
  while (position > 0) {
    const length = Math.min(CHUNK, position)
    position -= length
    const chunk = Buffer.alloc(length)
    readSync(fd, chunk, 0, length, position)
    const newline = chunk.lastIndexOf(0x0a)
    if (newline >= 0) {
      chunks.unshift(chunk.subarray(newline + 1))
      break
    }
    chunks.unshift(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * Creates an audit sink that appends chained JSON lines to a file. Each event is written with
 * one synchronous write (and, by default, an fsync) before the decision is returned, so a
 * process that dies right after a decision leaves it on disk. An existing log is continued:
 * its last line gives the next number and hash; a log whose last line is cut short is refused
 * rather than extended. One writer per file: two processes appending would break the chain.
 *
 * @example
 * ```ts
 * const audit = createFileAuditSink('/var/log/agent/audit.jsonl')
 * try {
 *   await executePlan(plan, tools, { compiler, audit })
 * } finally {
 *   audit.close()
 * }
 * ```
 */
export function createFileAuditSink(
  path: string,
  options: FileAuditSinkOptions = {},
): FileAuditSink {
  const now = options.now ?? Date.now
  const sync = options.fsync !== false
  let fd: number | undefined
  let key: Uint8Array | undefined
  try {
    key = auditKeyBytes(options.key)
  } catch (error) {
    throw new PlanError(errorMessage(error), { code: 'invalid_configuration', cause: error })
  }
  let head: AuditHead = { seq: 0, hash: auditGenesis(key) }
  try {
    fd = openSync(path, 'a+', 0o600)
    const size = fstatSync(fd).size
    if (options.verify === true && size > 0) {
      const result = verifyAuditLog(readFileSync(fd, 'utf8'), key === undefined ? {} : { key })
      if (!result.valid)
        throw failure(
          `The audit log ${path} does not verify: line ${result.line}: ${result.message}`,
        )
      head = result.head
    } else if (size > 0) {
      const line = readLastLine(fd, size)
      let seq: unknown
      try {
        const last: unknown = JSON.parse(line)
        seq = isRecord(last) ? last.seq : undefined
      } catch {
        seq = undefined
      }
      if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1)
        throw failure(`The last line of the audit log ${path} is not an audit record.`)
      head = { seq, hash: hashAuditLine(line, key) }
    }
  } catch (error) {
    if (fd !== undefined) closeSync(fd)
    throw PlanError.isInstance(error)
      ? error
      : failure(`Cannot open the audit log ${path}: ${errorMessage(error)}`, error)
  }
  const chain = createAuditChain(head, key)
  let broken: PlanError | undefined
  return {
    path,
    get head() {
      return chain.head
    },
    write(event) {
      if (broken !== undefined) throw broken
      if (fd === undefined) throw failure(`The audit log ${path} is closed.`)
      const line = chain.line(event, new Date(now()))
      const bytes = Buffer.from(`${line}\n`, 'utf8')
      try {
        let offset = 0
        while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset)
        if (sync) fsyncSync(fd)
      } catch (error) {
        // A partial line may be on disk: nothing more may be chained after it.
        broken = failure(`Cannot write to the audit log ${path}: ${errorMessage(error)}`, error)
        throw broken
      }
      chain.commit(line)
    },
    close() {
      if (fd === undefined) return
      const open = fd
      fd = undefined
      closeSync(open)
    },
  }
}
