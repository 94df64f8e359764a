import type { PlanIssue } from '@plan/shell/common'
import type { TrustLabel } from './untrusted-flow.js'

/**
 * One decision of a guard or an executor, as written to the audit log. Arguments and outputs
 * are recorded by their SHA-256 (of canonical JSON), not in clear.
 */
export type AuditEvent =
  /** A plan was approved and installed (`kind`: how it arrived). */
  | {
      readonly type: 'plan_approved'
      readonly kind: 'plan' | 'replan' | 'turn' | 'restore'
      readonly planHash: string
      readonly steps: number
      readonly signed: boolean
    }
  /** A submitted plan was rejected. */
  | {
      readonly type: 'plan_rejected'
      readonly kind: 'replan' | 'turn'
      readonly issues: readonly PlanIssue[]
    }
  /** A live call was allowed to run as `stepId`. */
  | {
      readonly type: 'call_allowed'
      readonly stepId: string
      readonly tool: string
      readonly argsHash: string
    }
  /** A live call was refused. */
  | {
      readonly type: 'call_denied'
      readonly tool: string | null
      readonly stepId: string | null
      readonly argsHash: string | null
      readonly issues: readonly PlanIssue[]
    }
  /** A step finished; `trust` is the label its output carries from now on. */
  | {
      readonly type: 'step_completed'
      readonly stepId: string
      readonly outputHash: string | null
      readonly trust: TrustLabel
    }
  /**
   * A resource request an adapter checked (MCP `resources/read` or `resources/subscribe`) was
   * allowed; `path` is the real path its `file:` URI names, as checked.
   */
  | {
      readonly type: 'resource_allowed'
      readonly method: string
      readonly uri: string
      readonly path: string | null
    }
  /** A resource request was refused; `uri` is null when it was not a string. */
  | {
      readonly type: 'resource_denied'
      readonly method: string
      readonly uri: string | null
      readonly path: string | null
      readonly issues: readonly PlanIssue[]
    }
  /** A resource's content reached the model; `trust` is the label it carries from now on. */
  | {
      readonly type: 'resource_completed'
      readonly uri: string
      readonly outputHash: string | null
      readonly trust: TrustLabel
    }
  /**
   * An MCP server listed a tool the guard withheld from the client: its definition differs
   * from the policy's `pin` (`pin` null: the policy has none for it).
   */
  | {
      readonly type: 'tool_withheld'
      readonly tool: string
      readonly definitionHash: string
      readonly pin: string | null
      readonly issue: PlanIssue
    }
  /** A step failed. */
  | { readonly type: 'step_failed'; readonly stepId: string; readonly error: string }
  /** A running step went back to ready (a retry). */
  | { readonly type: 'step_released'; readonly stepId: string }
  /** The run was stopped: an exhausted budget, a loop, a deadline, an audit failure. */
  | { readonly type: 'run_stopped'; readonly issue: PlanIssue }
  /** An executor started running a plan. */
  | { readonly type: 'run_started'; readonly planHash: string; readonly steps: number }
  /** An executor finished. */
  | {
      readonly type: 'run_ended'
      readonly status: string
      readonly reason: PlanIssue | null
    }

/** One line of the audit log, parsed. */
export interface AuditRecord {
  /** 1 for the first line, then +1 per line. */
  readonly seq: number
  /** When the line was written (ISO 8601). */
  readonly time: string
  /** SHA-256 (hex) of the previous line's text; `AUDIT_GENESIS` on the first line. */
  readonly prev: string
  readonly event: AuditEvent
}
