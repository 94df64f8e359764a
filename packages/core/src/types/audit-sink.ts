import type { AuditEvent } from './audit-event.js'

/**
 * Where a guard and an executor write decisions. `write` is synchronous and returns only once the
 * event is recorded: the guard writes before it answers; a throw stops the run (fail closed).
 */
export interface AuditSink {
  write(event: AuditEvent): void
}
