import type { AuditEvent } from './audit-event.js'

/**
 * Where a guard and an executor write their decisions. `write` is synchronous and must not
 * return before the event is recorded: the guard writes before it answers, and an exception
 * stops the run (fail closed).
 */
export interface AuditSink {
  write(event: AuditEvent): void
}
