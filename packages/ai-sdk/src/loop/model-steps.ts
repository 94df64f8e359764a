import { createModelStepTools, type ModelStepTools, type PlanCompiler } from '@plan/core'
import { generateText, type LanguageModel } from 'ai'

/**
 * The `extract` and `generate` steps of a plan, run by `model` without tools (a quarantined
 * model: it reads untrusted data but can call nothing).
 */
export function modelStepsWith(model: LanguageModel, compiler: PlanCompiler): ModelStepTools {
  return createModelStepTools({
    scope: compiler.policy.scope,
    complete: async ({ system, prompt }) => {
      const result = await generateText({ model, instructions: system, prompt })
      return result.text
    },
  })
}
