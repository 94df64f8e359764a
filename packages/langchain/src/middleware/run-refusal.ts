import { Command } from '@langchain/langgraph'
import { PlanError } from '@plan/core'

const REFUSED = '@plan/refused'

/**
 * A refused run, as written into `_planGuardState`: the reducer of that key throws it. It is
 * data, so that a checkpointer that keeps the write (LangGraph saves a finished task's writes)
 * makes every later resume throw too; the error itself travels only within this process.
 */
interface RunRefusal {
  readonly [REFUSED]: { readonly message: string }
}

function refusalOf(error: PlanError): RunRefusal {
  const refusal: RunRefusal = { [REFUSED]: { message: error.message } }
  Object.defineProperty(refusal, 'error', { value: error, enumerable: false })
  return refusal
}

/**
 * The error a refusal written into the state ends the run with, or `undefined` when `value`
 * is none. A refusal read back from a checkpoint ends it with `state_corrupt` (its text is
 * not trusted).
 */
export function refusalError(value: unknown): PlanError | undefined {
  if (typeof value !== 'object' || value === null || !(REFUSED in value)) return undefined
  const own: unknown = (value as { readonly error?: unknown }).error
  if (PlanError.isInstance(own)) return own
  return new PlanError(
    'The saved @plan guard state of this run was refused; no tool call can be authorized.',
    { code: 'state_corrupt' },
  )
}

/**
 * A state update that ends the invocation with `error`, as it is: LangChain wraps what a
 * `wrapModelCall` throws, but not what LangGraph's reducers throw when it applies the step's
 * writes. Written twice, so the reducer runs even when the state holds no run yet.
 */
export function refusalUpdate(error: PlanError): Command {
  const refusal = refusalOf(error)
  return new Command({
    update: [
      ['_planGuardState', refusal],
      ['_planGuardState', refusal],
    ],
  })
}
