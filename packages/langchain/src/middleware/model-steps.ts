import type { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { HumanMessage, SystemMessage } from '@langchain/core/messages'
import { createModelStepTools, type ModelStepTools, type PlanCompiler } from '@plan/core'

/**
 * The `extract` and `generate` steps of a plan, run by `model` with no tools bound (a
 * quarantined model: it reads untrusted data but can call nothing).
 */
export function modelStepsWith(model: BaseChatModel, compiler: PlanCompiler): ModelStepTools {
  return createModelStepTools({
    scope: compiler.policy.scope,
    complete: async ({ system, prompt }) => {
      const answer = await model.invoke([new SystemMessage(system), new HumanMessage(prompt)])
      return answer.text
    },
  })
}
