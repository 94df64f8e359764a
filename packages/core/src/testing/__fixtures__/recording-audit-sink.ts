import type { AuditEvent } from '../../types/audit-event.js'
import type { AuditSink } from '../../types/audit-sink.js'

/** An audit sink that keeps the events a guard writes, for tests (the log is `@plan/audit`'s). */
export interface RecordingAuditSink extends AuditSink {
  readonly events: readonly AuditEvent[]
}

export function recordingAuditSink(): RecordingAuditSink {
  const events: AuditEvent[] = []
  return {
    events,
    write(event) {
      events.push(event)
    },
  }
}
