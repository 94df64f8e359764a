import type { UntrustedFlowTracker } from '../flow/create-untrusted-flow-tracker.js'
import type { AuditEvent } from '../types/audit-event.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import type { StepValues } from '../util/step-values.js'
import type { GuardAudit } from './guard-audit.js'
import type { GuardJournal } from './guard-journal.js'
import type { RunBudgets } from './run-budgets.js'
import type { RunState } from './run-state.js'

/** What a guard is made of; the functions that decide about calls and plans take it. */
export interface GuardParts {
  readonly compiler: PlanCompiler
  readonly run: RunState
  readonly budgets: RunBudgets
  readonly flow: UntrustedFlowTracker
  readonly audit: GuardAudit
  /** What changed since the last saved revision, for stores that save changes. */
  readonly journal: GuardJournal
  /** Whether each running step was fed untrusted data (so its output is), by plan position. */
  readonly tainted: StepValues<boolean>
  /** Check path arguments on disk before a call is allowed. */
  readonly checkDisk: boolean
  /** Plans must carry a valid signature, checked with `secret`. */
  readonly signatureRequired: boolean
  readonly secret: string | Uint8Array
  /** Writes a decision; when the sink fails, the run stops (fail closed). */
  record(event: AuditEvent): void
}
