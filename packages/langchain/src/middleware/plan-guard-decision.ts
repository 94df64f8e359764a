import type { PlanIssue } from '@plan/core'

/**
 * One decision of the guard, reported to `onDecision` (for logs and audits): a model turn's
 * batch of tool calls checked as a plan (per-turn mode), or one live tool call.
 */
export type PlanGuardDecision =
  | {
      readonly kind: 'turn'
      /** Whether the turn's calls were approved as a plan. */
      readonly allowed: boolean
      readonly toolCallIds: readonly string[]
      readonly issues: readonly PlanIssue[]
    }
  | {
      readonly kind: 'call'
      /** Whether the call was allowed to reach the tool. */
      readonly allowed: boolean
      readonly toolCallId: string | undefined
      readonly tool: string
      /** The arguments the model sent. */
      readonly args: unknown
      /** The approved step the call ran as, when it was allowed. */
      readonly stepId?: string
      readonly issues: readonly PlanIssue[]
    }
