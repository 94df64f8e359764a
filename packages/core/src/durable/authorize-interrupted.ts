import type { InterruptedCall } from '../guard/interrupted-call.js'
import type { AuthorizeResult, PlanGuard, ToolCall } from '../guard/plan-guard.js'

/**
 * Asked, when a call that a crash interrupted comes again, whether it may run again; true
 * runs it again (a human approved, or the app knows it had no effect). May ask a human.
 */
export type RetryInterrupted = (call: InterruptedCall) => boolean | Promise<boolean>

/**
 * `guard.authorize(call)`, except that a call denied as `interrupted_call` is offered to
 * `retry`; when it answers true the step is released and the call authorized again (the
 * interrupted start still counts against the budgets: at-least-once, by approval).
 */
export async function authorizeInterrupted(
  guard: PlanGuard,
  call: ToolCall,
  retry: RetryInterrupted | undefined,
): Promise<AuthorizeResult> {
  const result = await guard.authorize(call)
  if (result.allowed || result.issue.code !== 'interrupted_call' || retry === undefined)
    return result
  const stepId = result.issue.stepId
  const interrupted = guard.interruptedCalls().find((entry) => entry.stepId === stepId)
  if (interrupted === undefined || (await retry(interrupted)) !== true) return result
  guard.release(interrupted.stepId)
  return guard.authorize(call)
}
