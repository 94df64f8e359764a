import type { PlanGuard, PlanIssue } from '@plan/core'
import { reviewText } from '@plan/core/adapter'
import type { ToolApprovalStatus } from 'ai'
import { type CallDecision, decideForApproval } from '../session/decide-call.js'
import { denialReason } from '../session/denial.js'
import { humanMayOverrule, markAsked } from '../session/human-review.js'
import { reportDecision } from '../telemetry/report-decision.js'
import { type GuardToolsOptions, isGuardedBy } from '../tools/guard-tools.js'

/** The part of an AI SDK tool call that the approval function reads. */
export interface ApprovalToolCall {
  readonly toolName: string
  readonly toolCallId: string
  readonly input: unknown
  readonly providerExecuted?: boolean | undefined
}

/** A generic `toolApproval` function for `generateText`, `streamText` and `ToolLoopAgent`. */
export type PlanToolApprovalFunction = (options: {
  readonly toolCall: ApprovalToolCall
  readonly tools?: Readonly<Record<string, unknown>> | undefined
}) => Promise<ToolApprovalStatus>

/** Options for {@link planToolApproval}. */
export interface PlanToolApprovalOptions {
  /**
   * The status for calls the guard allows: `'not-applicable'` (default) runs them without
   * approval records; `'approved'` adds an automatic approval to the messages.
   */
  readonly allowedStatus?: 'not-applicable' | 'approved'
  /**
   * Send calls refused only by `trust.tainted` to a human (`user-approval`) instead of denying
   * them; an approved call then runs once. The refusals of one step reach the human together,
   * each with core's `reviewText` as its reason; past the policy's `trust.tainted.maxQuestions`
   * the run stops (`budget_exhausted`) instead. Default false (`createPlanGuardedTools` sets it
   * from the policy's `trust.tainted.onRefuse`).
   */
  readonly askHuman?: boolean
  /** Called for every call the approval denies (allowed calls are reported by the tool wrapper). */
  readonly onDecision?: GuardToolsOptions['onDecision']
}

/**
 * A `toolApproval` function for AI SDK 7 that asks the guard about every tool call before
 * the SDK runs it. A denied call never runs and reaches the model as `execution-denied`
 * with the guard's issues as the reason. The tool wrappers of {@link guardTools} stay the
 * authoritative check; the approval does not reserve a step twice.
 *
 * Calls to tools that are not wrapped by `guardTools` with the same guard, and
 * provider-executed calls, are denied: nothing would check them when they run.
 *
 * @example
 * ```ts
 * const result = await generateText({
 *   model,
 *   tools: guardTools(tools, guard),
 *   toolApproval: planToolApproval(guard),
 *   prompt,
 * })
 * ```
 */
export function planToolApproval(
  guard: PlanGuard,
  options: PlanToolApprovalOptions = {},
): PlanToolApprovalFunction {
  const allowedStatus = options.allowedStatus ?? 'not-applicable'
  const asksHuman = options.askHuman === true
  const deny = (toolCall: ApprovalToolCall, reason: string, issues: readonly PlanIssue[]) => {
    reportDecision(
      {
        kind: 'call',
        tool: toolCall.toolName,
        callId: toolCall.toolCallId,
        args: toolCall.input,
        allowed: false,
        stepId: undefined,
        issues,
      },
      options.onDecision,
    )
    return { type: 'denied' as const, reason }
  }
  const statusOf = (toolCall: ApprovalToolCall, decision: CallDecision): ToolApprovalStatus => {
    if (decision.allowed) return allowedStatus
    if (asksHuman && humanMayOverrule(decision.issues)) {
      markAsked(guard, toolCall.toolCallId)
      // The step's questions reach the human together: the SDK stops the loop after the step.
      return { type: 'user-approval' as const, reason: reviewText({ issues: decision.issues }) }
    }
    return deny(toolCall, denialReason(guard, toolCall.toolName, decision), decision.issues)
  }
  // The decision's promise is followed with `then`, not awaited in an async function of its own.
  return ({ toolCall, tools }) => {
    try {
      const tool = toolCall.toolName
      if (toolCall.providerExecuted === true) {
        return Promise.resolve(
          deny(toolCall, `@plan cannot check "${tool}": it is executed by the model provider.`, []),
        )
      }
      const definition = tools !== undefined && Object.hasOwn(tools, tool) ? tools[tool] : undefined
      if (tools !== undefined && !isGuardedBy(definition, guard)) {
        return Promise.resolve(
          deny(
            toolCall,
            `@plan denied the call to "${tool}": the tool is not wrapped by guardTools with this guard.`,
            [],
          ),
        )
      }
      const decided = decideForApproval(guard, {
        tool,
        args: toolCall.input,
        callId: toolCall.toolCallId,
        ...(asksHuman ? { asksHuman } : {}),
      })
      return decided.then((decision) => statusOf(toolCall, decision))
    } catch (error) {
      return Promise.reject(error)
    }
  }
}
