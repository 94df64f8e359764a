import type { AuditSink } from '../types/audit-sink.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import type { PlanGuard } from '../types/plan-guard.js'
import type { ExecutionEvent } from './execution-event.js'

/** Options for `executePlan`. */
export interface ExecutePlanOptions {
  /** The compiler (and so the policy) every call is authorized with. */
  readonly compiler: PlanCompiler
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
  /** Check path arguments on disk before each call. Default true. */
  readonly checkPathsOnDisk?: boolean
  /** Largest accepted step output, as JSON text. Default 16 MiB. */
  readonly maxOutputBytes?: number
  /** Progress events; an exception thrown here is ignored. */
  readonly onEvent?: (event: ExecutionEvent) => void
  /** Clock, for tests. Defaults to `Date.now`. */
  readonly now?: () => number
  /**
   * Where decisions are written: the run's start, end and deadline here, and every guard
   * decision when the executor creates the guard (a guard passed in writes to its own sink).
   * A failed write stops the run.
   */
  readonly audit?: AuditSink
  /** The plan's `signPlan` signature, checked when the executor creates the guard. */
  readonly signature?: string
  /** The secret plans are signed with. */
  readonly secret?: string | Uint8Array
}
