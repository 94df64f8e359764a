import { Command } from '@langchain/langgraph'
import type { PlanError } from '@plan/core'

/**
 * A refused run's error, written into the agent state: the reducer of `_planGuardState` throws
 * it. Only this process creates one; a value read back from a checkpoint never is one.
 */
export class RunRefusal {
  readonly error: PlanError

  constructor(error: PlanError) {
    this.error = error
  }
}

/**
 * A state update that ends the invocation with `error`, as it is: LangChain wraps what a
 * `wrapModelCall` throws, but not what LangGraph's reducers throw when it applies the step's
 * writes. Written twice, so the reducer runs even when the state holds no run yet.
 */
export function refusalUpdate(error: PlanError): Command {
  const refusal = new RunRefusal(error)
  return new Command({
    update: [
      ['_planGuardState', refusal],
      ['_planGuardState', refusal],
    ],
  })
}
