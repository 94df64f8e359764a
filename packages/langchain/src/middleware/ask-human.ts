import { interrupt } from '@langchain/langgraph'
import type { PlanIssue } from '@plan/core'
import { reviewText } from '@plan/core/adapter'
import type { HITLRequest, HITLResponse } from 'langchain'

/** True when every issue is one a human may overrule (`trust.tainted` with `onRefuse: 'ask'`). */
export function mayAskHuman(issues: readonly PlanIssue[], onRefuse: 'deny' | 'ask' | undefined) {
  return onRefuse === 'ask' && issues.length > 0 && issues.every((i) => i.code === 'tainted_run')
}

/**
 * Pauses the run with a LangGraph interrupt shaped like `humanInTheLoopMiddleware`'s
 * (`actionRequests`, `reviewConfigs`); resume it with `{ decisions: [{ type: 'approve' }] }`
 * or `{ decisions: [{ type: 'reject', message }] }`. Returns true when the human approved.
 */
export function askHuman(
  call: { readonly name: string; readonly args: Record<string, unknown> },
  issues: readonly PlanIssue[],
): { approved: boolean; message: string | undefined } {
  const request: HITLRequest = {
    actionRequests: [
      {
        name: call.name,
        args: call.args,
        description: reviewText({ issues }),
      },
    ],
    reviewConfigs: [{ actionName: call.name, allowedDecisions: ['approve', 'reject'] }],
  }
  const response = interrupt(request) as HITLResponse | undefined
  const decision = response?.decisions?.[0]
  if (decision?.type === 'approve') return { approved: true, message: undefined }
  return {
    approved: false,
    message: decision?.type === 'reject' ? decision.message : undefined,
  }
}
