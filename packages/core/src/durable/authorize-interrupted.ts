import type { InterruptedCall } from '../types/interrupted-call.js'
import type { AuthorizeResult, PlanGuard, ToolCall } from '../types/plan-guard.js'

/**
 * Asked, when a call that a crash interrupted comes again, whether it may run again; true
 * runs it again (a human approved, or the app knows it had no effect). May ask a human.
 */
export type RetryInterrupted = (call: InterruptedCall) => boolean | Promise<boolean>

/**
 * `guard.authorize(call)`, except that a call denied as `interrupted_call` is offered to `retry`;
 * on true the interrupted step is released (or, from an earlier turn, closed as failed) and the
 * call authorized again (the interrupted start counts against budgets: at-least-once, by approval).
 */
export function authorizeInterrupted(
  guard: PlanGuard,
  call: ToolCall,
  retry: RetryInterrupted | undefined,
): Promise<AuthorizeResult> {
  // Without `retry` it is guard.authorize itself, answered without an extra turn of the loop.
  return retry === undefined ? guard.authorize(call) : authorizeWithRetry(guard, call, retry)
}

async function authorizeWithRetry(
  guard: PlanGuard,
  call: ToolCall,
  retry: RetryInterrupted,
): Promise<AuthorizeResult> {
  // A refusal offered to `retry` (which may pause the run to ask a human) counts once per call.
  const asked: ToolCall = { ...call, asksHuman: true }
  const result = await guard.authorize(asked)
  if (result.allowed || result.issue.code !== 'interrupted_call') return result
  const stepId = result.issue.stepId
  const interrupted = guard.interruptedCalls().find((entry) => entry.stepId === stepId)
  if (interrupted === undefined || (await retry(interrupted)) !== true) return result
  // A step of the current plan runs again; a step of an earlier turn is closed, and this call runs.
  if (guard.plan?.steps.some((step) => step.id === interrupted.stepId) === true)
    guard.release(interrupted.stepId)
  else guard.fail(interrupted.stepId, new Error('interrupted; run again as another step'))
  return guard.authorize(asked)
}
