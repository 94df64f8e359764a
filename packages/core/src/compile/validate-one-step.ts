import { hasOwnKey, isPlainObject } from '@plan/json'
import type { ToolPolicy } from '../schema/policy-schema.js'
import { MAX_STEP_ID_LENGTH, matchesStepIdPattern } from '../schema/step-id.js'
import type { PlanValidationResult } from '../types/plan-compiler.js'
import type { ResolvedPolicy } from '../types/resolved-policy.js'
import type { ArgumentWalk, Path } from './argument-walk.js'
import { buildOneStepPlan } from './build-compiled-plan.js'
import { checkArgumentsInto } from './check-arguments.js'
import type { CommandCheck } from './command-check.js'

// Where the one step's arguments are; the argument check copies it, never writes it.
const ARGS_PATH: Path = ['steps', 0, 'args']

/** The one step of `{ steps: [step] }`, when the plan has no other key; else undefined. */
function onlyStep(plan: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(plan)) return undefined
  for (const key in plan) if (hasOwnKey(plan, key) && key !== 'steps') return undefined
  if (!hasOwnKey(plan, 'steps') || plan.goal !== undefined) return undefined
  const steps = plan.steps
  if (!Array.isArray(steps) || steps.length !== 1) return undefined
  const step: unknown = steps[0]
  return isPlainObject(step) ? step : undefined
}

/** The step's own well-formed id, when it has no key but `id`, `tool` and `args`. */
function plainStepId(step: Record<string, unknown>): string | undefined {
  for (const key in step)
    if (hasOwnKey(step, key) && key !== 'id' && key !== 'tool' && key !== 'args') return undefined
  // Keys a loop over the step does not see (not enumerable) are read all the same.
  if (hasOwnKey(step, 'depends_on') || hasOwnKey(step, 'dependsOn')) return undefined
  if (hasOwnKey(step, 'description') || !hasOwnKey(step, 'id')) return undefined
  const id = step.id
  if (typeof id !== 'string' || id.length > MAX_STEP_ID_LENGTH) return undefined
  return matchesStepIdPattern(id) ? id : undefined
}

/** The tool's policy, when a one-step plan of it meets every static budget and check. */
function plainToolPolicy(policy: ResolvedPolicy, tool: unknown): ToolPolicy | undefined {
  if (typeof tool !== 'string' || tool.length === 0) return undefined
  const toolPolicy = policy.tools.get(tool)
  if (toolPolicy === undefined || toolPolicy.output?.extract === true) return undefined
  const budgets = policy.policy.budgets
  const limit = toolPolicy.maxCalls ?? budgets.maxCallsPerTool
  if (limit !== undefined && !(limit >= 1)) return undefined
  if (!(budgets.maxSteps >= 1 && budgets.maxDepth >= 1 && budgets.maxFanOut >= 0)) return undefined
  return toolPolicy
}

/**
 * `validatePlan` of a one-step plan without a general plan's tables: the approved plan when it is
 * `{ steps: [{ id, tool, args }] }` (a model turn's one call), its tool allowed and its arguments
 * passing their checks without any reference; undefined for any other plan, left to `validatePlan`.
 * Only what `validatePlan` approves is approved here: the arguments go through its own check.
 */
export function validateOneStep(
  policy: ResolvedPolicy,
  checkCommand: CommandCheck,
  plan: unknown,
): PlanValidationResult | undefined {
  const step = onlyStep(plan)
  if (step === undefined) return undefined
  const id = plainStepId(step)
  if (id === undefined) return undefined
  const tool = hasOwnKey(step, 'tool') ? step.tool : undefined
  const toolPolicy = plainToolPolicy(policy, tool)
  if (toolPolicy === undefined || typeof tool !== 'string') return undefined
  // The plan's ids and its order: one frozen array, kept by the plan.
  const ids: readonly [string] = Object.freeze([id])
  // No `plan`: a reference is refused, and the general validation decides that plan.
  const walk: ArgumentWalk = {
    scope: policy.scope,
    checkCommand,
    stepId: id,
    base: ARGS_PATH,
    issues: [],
    references: [],
    owned: false,
  }
  const args = checkArgumentsInto(toolPolicy, hasOwnKey(step, 'args') ? step.args : undefined, walk)
  // Any issue: the general validation reports it, with its location.
  if (walk.issues.length > 0) return undefined
  return { success: true, plan: buildOneStepPlan(ids, tool, args), issues: [] }
}
