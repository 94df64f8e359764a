import type { PlanIssue } from '@plan/shell/common'

/** One live tool call, allowed to reach its tool or refused. */
export interface CallDecisionEvent {
  readonly kind: 'call'
  /** The tool's name, as the model called it. */
  readonly tool: string
  /** The framework's id of the call (tool call id, JSON-RPC request id), when it has one. */
  readonly callId: string | undefined
  /** The arguments the model sent. */
  readonly args: unknown
  /** Whether the call was allowed to reach the tool. */
  readonly allowed: boolean
  /** The approved step the call runs as, when it was allowed. */
  readonly stepId: string | undefined
  /** Why it was refused; empty when it was allowed. */
  readonly issues: readonly PlanIssue[]
}

/** One model turn's batch of tool calls, checked as one plan (per-turn mode). */
export interface TurnDecisionEvent {
  readonly kind: 'turn'
  /** Whether the turn's calls were approved as a plan. */
  readonly allowed: boolean
  /** The framework's ids of the turn's calls, in order. */
  readonly callIds: readonly string[]
  /** Why the turn was rejected; empty when it was approved. */
  readonly issues: readonly PlanIssue[]
}

/**
 * What every adapter reports to `onDecision`: a live call (`kind: 'call'`) in every adapter,
 * and, where the framework has turns, a turn's batch of calls checked as a plan
 * (`kind: 'turn'`). The same policy yields the same events in LangChain, the AI SDK and MCP.
 */
export type DecisionEvent = CallDecisionEvent | TurnDecisionEvent
