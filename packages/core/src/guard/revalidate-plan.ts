import { canonicalJson } from '@plan/json'
import { PlanError } from '@plan/shell/common'
import { PlanCompilationError } from '../errors/plan-compilation-error.js'
import { unreadableIssue } from '../issues/unreadable-issue.js'
import type { CompiledPlan } from '../types/compiled-plan.js'
import type { PlanCompiler } from '../types/plan-compiler.js'

/** Ids, tools, arguments and dependencies: what must match between a plan and its re-validation. */
function sameSteps(left: CompiledPlan, right: CompiledPlan): boolean {
  if (left.steps.length !== right.steps.length) return false
  return left.steps.every((step, index) => {
    const other = right.steps[index]
    return (
      other !== undefined &&
      other.id === step.id &&
      other.tool === step.tool &&
      canonicalJson(other.args) === canonicalJson(step.args) &&
      canonicalJson([...other.dependsOn].sort()) === canonicalJson([...step.dependsOn].sort())
    )
  })
}

function revalidateUnsafely(compiler: PlanCompiler, plan: CompiledPlan): CompiledPlan {
  if (compiler.approves(plan)) return plan
  const steps = Array.isArray(plan?.steps) ? plan.steps : undefined
  if (steps === undefined)
    throw new PlanError('The plan to guard is not a compiled plan.', { code: 'invalid_plan' })
  const input = {
    steps: steps.map((step) => ({
      id: step?.id,
      tool: step?.tool,
      args: step?.args,
      depends_on: step?.dependsOn,
    })),
  }
  const result = compiler.validate(input)
  if (!result.success) throw new PlanCompilationError(result.issues)
  // The hash covers every dependency, explicit or implied, so a faithful copy hashes the same;
  // a plan whose claimed hash differs was edited (or forged) and is refused.
  if (!sameSteps(plan, result.plan) || plan.hash !== result.plan.hash)
    throw new PlanError('The plan to guard differs from what the compiler approves.', {
      code: 'plan_tampered',
    })
  return result.plan
}

/**
 * Compiles a plan again from its steps, so a plan object not from this compiler (edited, forged,
 * restored from JSON) is never trusted as approved. Throws `PlanError` if it fails or differs.
 */
export function revalidatePlan(compiler: PlanCompiler, plan: CompiledPlan): CompiledPlan {
  try {
    return revalidateUnsafely(compiler, plan)
  } catch (error) {
    if (PlanError.isInstance(error)) throw error
    throw new PlanError('The plan to guard cannot be read.', {
      issues: [unreadableIssue('invalid_plan', 'plan to guard', error)],
      cause: error,
    })
  }
}
