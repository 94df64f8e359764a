import { AIMessage } from '@langchain/core/messages'
import type { PlanGuardFields } from './plan-guard-state.js'

/** True when the state holds neither a run id nor a saved run state. */
function holdsNoRun(state: PlanGuardFields): boolean {
  return (
    state._planGuardRunId === undefined &&
    (state._planGuardState === undefined || state._planGuardState === null)
  )
}

/** True when the agent loop ended at the last model turn: its answer called no tool. */
function loopEnded(messages: readonly unknown[] | undefined): boolean {
  const last = messages?.findLast((message) => AIMessage.isInstance(message))
  return last !== undefined && AIMessage.isInstance(last) && (last.tool_calls ?? []).length === 0
}

/**
 * Whether a model call starts a new run instead of going on with the state's. A state without
 * a run starts one. An invocation that has not met the state's run yet (a new `invoke`, or a
 * resume) starts one when that run's agent loop had ended, and otherwise resumes it; within
 * one invocation the run goes on, even when another middleware sends an ended loop back to
 * the model.
 */
export function startsNewRun(state: PlanGuardFields, sameInvocation: boolean): boolean {
  if (holdsNoRun(state)) return true
  return !sameInvocation && loopEnded(state.messages)
}
