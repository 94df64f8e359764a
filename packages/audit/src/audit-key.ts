import { hmacSha256, secretBytes, sha256Hex, toHex } from '@plan/core/adapter'

/** The `prev` of a log's first line. */
export const AUDIT_GENESIS = '0'.repeat(64)

/**
 * A secret that keys an audit log's chain (at least 32 bytes). With it, each line carries the
 * HMAC-SHA-256 of the line before instead of its plain SHA-256, so whoever edits a line cannot
 * re-chain the log without the key.
 */
export type AuditKey = string | Uint8Array

/** The key as bytes, or undefined when there is none; throws `TypeError` when it is too short. */
export function auditKeyBytes(key: unknown): Uint8Array | undefined {
  if (key === undefined) return undefined
  const bytes = secretBytes(key)
  if (bytes === undefined)
    throw new TypeError('An audit key must be a string or bytes of at least 32 bytes.')
  return bytes
}

/** The chaining hash of one line: SHA-256, or HMAC-SHA-256 under the key. */
export function hashAuditLine(line: string, key: Uint8Array | undefined): string {
  return key === undefined ? sha256Hex(line) : toHex(hmacSha256(key, line))
}

/**
 * The `prev` of a log's first line: {@link AUDIT_GENESIS}, or its HMAC under the key, so that a
 * keyed log cannot be swapped for an unkeyed one.
 */
export function auditGenesis(key: Uint8Array | undefined): string {
  return key === undefined ? AUDIT_GENESIS : hashAuditLine(AUDIT_GENESIS, key)
}
