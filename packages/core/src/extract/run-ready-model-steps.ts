import { PlanError } from '@plan/shell/common'
import type { PlanGuard } from '../types/plan-guard.js'
import type { ModelStepTools } from './create-model-step-tools.js'
import { EXTRACT_TOOL, GENERATE_TOOL } from './model-step-policy.js'

function isModelStep<Step extends { readonly tool: string }>(
  step: Step,
): step is Step & { readonly tool: 'extract' | 'generate' } {
  return step.tool === EXTRACT_TOOL || step.tool === GENERATE_TOOL
}

/**
 * Runs every ready `extract` and `generate` step of a guarded plan, and those they make ready,
 * through the guard (authorized, then completed or failed), so the agent's own model never
 * handles them. Adapters call it before each model call in plan mode. Returns how many ran.
 *
 * @example
 * ```ts
 * await runReadyModelSteps(guard, createModelStepTools({ complete, scope }))
 * ```
 */
export async function runReadyModelSteps(
  guard: PlanGuard,
  tools: ModelStepTools,
  signal: AbortSignal = new AbortController().signal,
): Promise<number> {
  let ran = 0
  for (;;) {
    if (guard.stopReason() !== undefined) return ran
    const ready = guard.readySteps().filter(isModelStep)
    if (ready.length === 0) return ran
    for (const step of ready) {
      const resolved = guard.resolveArgs(step.id)
      if (!resolved.success) {
        guard.fail(step.id, new PlanError(resolved.issue.message, { issues: [resolved.issue] }))
        continue
      }
      const decision = await guard.authorize({
        tool: step.tool,
        args: resolved.args,
        stepId: step.id,
      })
      if (!decision.allowed) {
        guard.fail(step.id, new PlanError(decision.issue.message, { issues: decision.issues }))
        continue
      }
      ran += 1
      try {
        const run = tools[step.tool]
        guard.complete(step.id, await run(decision.args, { signal, stepId: step.id }))
      } catch (error) {
        guard.fail(step.id, error)
      }
    }
  }
}
