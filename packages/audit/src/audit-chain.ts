import type { AuditEvent } from '@plan/core'
import { rfc8785Json } from '@plan/json'
import { auditGenesis, hashAuditLine } from './audit-key.js'

/** The last line of a log: its number and the hash of its text. */
export interface AuditHead {
  readonly seq: number
  readonly hash: string
}

/** Turns events into chained log lines. */
export interface AuditChain {
  /** The last line made so far (`seq` 0 and the genesis hash before the first). */
  readonly head: AuditHead
  /** The line (without newline) for the next event; the head moves only with `commit`. */
  line(event: AuditEvent, time: Date): string
  /** Moves the head past a line once it is safely written. */
  commit(line: string): void
}

/** The format version of the lines written here: the whole line is RFC 8785 canonical JSON. */
export const AUDIT_LINE_VERSION = 2

/**
 * The line of one record, without newline: the RFC 8785 canonical JSON of
 * `{ event, prev, seq, time, version }`, so a verifier in any language rebuilds the exact bytes
 * that the next line's `prev` hashes.
 */
export function formatAuditLine(
  seq: number,
  time: string,
  prev: string,
  event: AuditEvent,
): string {
  return rfc8785Json({ event, prev, seq, time, version: AUDIT_LINE_VERSION })
}

/** Starts a chain after `head`, or at the genesis; `key` (bytes) makes the chain keyed. */
export function createAuditChain(head?: AuditHead, key?: Uint8Array): AuditChain {
  let current = head ?? { seq: 0, hash: auditGenesis(key) }
  return {
    get head() {
      return current
    },
    line(event, time) {
      return formatAuditLine(current.seq + 1, time.toISOString(), current.hash, event)
    },
    commit(line) {
      current = { seq: current.seq + 1, hash: hashAuditLine(line, key) }
    },
  }
}
