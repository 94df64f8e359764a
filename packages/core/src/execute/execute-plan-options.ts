import type { AuditSink } from '../types/audit-sink.js'
import type { PlanGuard, PlanGuardOptions } from '../types/plan-guard.js'
import type { ExecutionEvent } from './execution-event.js'

/**
 * Options for `executePlan`. `compiler` authorizes every call; `checkPathsOnDisk` (default
 * true), `now`, `signature` and `secret` are those of the guard the executor creates.
 */
export interface ExecutePlanOptions
  extends Pick<PlanGuardOptions, 'compiler' | 'checkPathsOnDisk' | 'now' | 'signature' | 'secret'> {
  /** A guard to run through, e.g. one restored from a snapshot; created from the plan when omitted. */
  readonly guard?: PlanGuard
  /** Most steps running at once. Default 4. */
  readonly concurrency?: number
  /** Time limit of one attempt of one step, in milliseconds. No limit by default. */
  readonly timeoutMs?: number
  /** Extra attempts after a step throws, times out or returns a non-JSON value (0 to 10). Default 0. */
  readonly retries?: number
  /** Pause before a retry, in milliseconds. Default 0. */
  readonly retryDelayMs?: number
  /** Stops the run: running steps are aborted, the rest skipped. */
  readonly signal?: AbortSignal
  /** Stop at the first failed or denied step (default); when false, only its dependents are skipped. */
  readonly failFast?: boolean
  /** Largest accepted step output, as JSON text. Default 16 MiB. */
  readonly maxOutputBytes?: number
  /** Progress events; an exception thrown here is ignored. */
  readonly onEvent?: (event: ExecutionEvent) => void
  /**
   * Where decisions are written: the run's start, end and deadline, and every guard decision when
   * the executor makes the guard (a guard passed in uses its own). A failed write stops the run.
   */
  readonly audit?: AuditSink
}
