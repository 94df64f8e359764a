import type { AuditEvent, AuditSink } from '@plan/core'
import { createAuditChain } from './audit-chain.js'
import { type AuditKey, auditKeyBytes } from './audit-key.js'

/** An audit sink that keeps its lines in memory. */
export interface MemoryAuditSink extends AuditSink {
  /** The log lines written so far, without newlines. */
  readonly lines: readonly string[]
  /** The events written so far. */
  readonly events: readonly AuditEvent[]
}

/** Options for {@link createMemoryAuditSink}. */
export interface MemoryAuditSinkOptions {
  /** Clock, for tests. Defaults to `Date.now`. */
  readonly now?: () => number
  /** Keys the chain with HMAC-SHA-256 (verify with the same `key`). */
  readonly key?: AuditKey
}

/**
 * Creates an audit sink that keeps the chained log lines in memory (for tests and for
 * shipping them elsewhere yourself).
 *
 * @example
 * ```ts
 * const audit = createMemoryAuditSink()
 * const guard = createPlanGuard(plan, { compiler, audit })
 * // …
 * expect(verifyAuditLog(audit.lines).valid).toBe(true)
 * ```
 */
export function createMemoryAuditSink(options: MemoryAuditSinkOptions = {}): MemoryAuditSink {
  const now = options.now ?? Date.now
  const chain = createAuditChain(undefined, auditKeyBytes(options.key))
  const lines: string[] = []
  const events: AuditEvent[] = []
  return {
    lines,
    events,
    write(event) {
      const line = chain.line(event, new Date(now()))
      lines.push(line)
      events.push(event)
      chain.commit(line)
    },
  }
}
