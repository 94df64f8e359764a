import { PlanError, type PlanIssue } from '@plan/shell/common'
import type { AuditEvent } from '../types/audit-event.js'
import type { AuditSink } from '../types/audit-sink.js'
import { runIssue } from '../util/run-issue.js'

/** Where a guard writes its decisions. */
export interface GuardAudit {
  /** False when there is no sink: events need not be built (their hashes cost time). */
  readonly enabled: boolean
  /** Writes one decision; false when the sink failed (the caller fails closed). */
  write(event: AuditEvent): boolean
}

/** The guard's audit hooks over `sink` (none: every write succeeds and costs nothing). */
export function createGuardAudit(sink: AuditSink | undefined): GuardAudit {
  if (sink === undefined) return { enabled: false, write: () => true }
  return {
    enabled: true,
    write(event) {
      try {
        sink.write(event)
        return true
      } catch {
        return false
      }
    },
  }
}

/** Stops the run because a decision could not be written, and answers why. */
export function stopForAuditFailure(budgets: { stopped: PlanIssue | undefined }): PlanIssue {
  const failure = runIssue(
    'audit_failed',
    'A decision could not be written to the audit log; the run is stopped.',
    'Fix the audit log (disk space, permissions) and resume the run.',
  )
  // Not through stop(): the sink that failed would be asked to record the stop.
  budgets.stopped ??= failure
  return failure
}

function auditError(message: string, hint: string): PlanError {
  return new PlanError(message, { issues: [runIssue('audit_failed', message, hint)] })
}

/** Thrown when the policy requires an audit log and the guard has no sink. */
export function auditRequiredError(): PlanError {
  return auditError(
    'The policy requires an audit log, but the guard was given no audit sink.',
    'Pass an audit sink (createFileAuditSink(path) from @plan/audit/node).',
  )
}

/** Thrown when the approval of the guarded plan could not be written. */
export function approvalNotAuditedError(): PlanError {
  return auditError(
    'The plan approval could not be written to the audit log.',
    'Fix the audit log and try again.',
  )
}
