import { checkPathLexical, type PathAccess, type PlanIssue, PolicyError } from '@plan/shell/common'
import type { z } from 'zod'
import { checkPathOnDisk } from '../checks/path-on-disk.js'
import { PlanCompilationError } from '../errors/plan-compilation-error.js'
import { unreadableIssue } from '../issues/unreadable-issue.js'
import { checkPolicyExamples } from '../policy/check-policy-examples.js'
import { resolvePolicyLazily } from '../policy/resolve-policy-lazily.js'
import type { PolicyInput } from '../schema/policy-schema.js'
import { loadTracingApi } from '../telemetry/tracing-api.js'
import type { PlanCompiler, PlanValidationResult } from '../types/plan-compiler.js'
import type { PlanObject } from '../types/plan-object.js'
import type { ResolvedPolicy, ResolvePolicyOptions } from '../types/resolved-policy.js'
import { runIssue } from '../util/run-issue.js'
import type { ArgumentWalk } from './argument-walk.js'
import { checkArgumentsInto } from './check-arguments.js'
import { type CommandCheck, createCommandCheck } from './command-check.js'
import { parsePlanText } from './parse-plan-text.js'
import { quote } from './step-path.js'
import { suggest } from './suggest.js'
import { trackedDenyWarnings } from './tracked-deny-warnings.js'
import { validateOneStep } from './validate-one-step.js'
import { validatePlan } from './validate-plan.js'
import { withUnrecordedValidate } from './validate-unrecorded.js'

/** Options for {@link createPlanCompiler}. */
export interface PlanCompilerOptions extends ResolvePolicyOptions {}

/** The issues of one live call's arguments (no references allowed). */
function checkToolArguments(
  policy: ResolvedPolicy,
  checkCommand: CommandCheck,
  tool: unknown,
  args: unknown,
): PlanIssue[] {
  const toolPolicy = typeof tool === 'string' ? policy.tools.get(tool) : undefined
  if (toolPolicy === undefined) {
    const name = typeof tool === 'string' ? tool : String(tool)
    const guess = suggest(name, policy.tools.keys())
    return [
      runIssue(
        'unknown_tool',
        `Tool ${quote(name)} is not allowed by the policy.`,
        guess === undefined ? undefined : `Did you mean ${quote(guess)}?`,
      ),
    ]
  }
  const walk: ArgumentWalk = {
    scope: policy.scope,
    checkCommand,
    base: [],
    issues: [],
    references: [],
  }
  checkArgumentsInto(toolPolicy, args, walk)
  return walk.issues
}

/**
 * Creates a compiler bound to one policy. The Bash grammar behind command checks is loaded once,
 * here, so `validate` and `compile` are synchronous. The policy's `examples` are decided here too:
 * a `PolicyError` with a `policy_example_failed` issue per example the policy decides otherwise.
 *
 * @example
 * ```ts
 * const compiler = await createPlanCompiler({
 *   version: 1,
 *   workspace: { roots: ['/srv/repo'] },
 *   tools: { view_file: { args: { file: { type: 'path', access: 'read' } } } },
 * })
 * const result = compiler.validate([{ id: 'read', tool: 'view_file', args: { file: 'README.md' } }])
 * if (!result.success) console.error(result.issues)
 * ```
 */
export async function createPlanCompiler(
  policyInput: PolicyInput | ResolvedPolicy,
  options: PlanCompilerOptions = {},
): Promise<PlanCompiler> {
  const policy = await resolvePolicyLazily(policyInput, options)
  // The OpenTelemetry API is loaded here, once, when the application uses it.
  const [commandCheck] = await Promise.all([createCommandCheck(policy), loadTracingApi()])
  const checkCommand = commandCheck.check
  const warnings = Object.freeze([...commandCheck.warnings, ...trackedDenyWarnings(policy.scope)])
  // Plans this compiler produced (deep-frozen, so unchanged since): the guard need not re-check them.
  const approved = new WeakSet<object>()
  let narrowed: Promise<z.ZodType<PlanObject>> | undefined

  // Public entries never throw on hostile input (getters, Proxies): they fail closed with an issue.
  const validate = (plan: unknown, record = true, owned = false): PlanValidationResult => {
    try {
      const result = validatePlan(policy, checkCommand, plan, owned)
      if (result.success && record) approved.add(result.plan)
      return result
    } catch (error) {
      return { success: false, issues: [unreadableIssue('invalid_plan', 'plan', error)] }
    }
  }

  // The plan of a text is parsed here and held by nothing else: the compiler may take it apart.
  const validateText = (text: unknown): PlanValidationResult => {
    const parsed = parsePlanText(text)
    if ('issue' in parsed) return { success: false, issues: [parsed.issue] }
    return validate(parsed.plan, true, true)
  }

  const compiler: PlanCompiler = {
    policy,
    validate: (plan) => validate(plan),
    validateText,
    planSchema() {
      // zod is loaded here, when a schema is asked for, not when the compiler starts.
      narrowed ??= import('../plan/plan-schema-for-policy.js').then((module) =>
        module.planSchemaForPolicy(policy),
      )
      return narrowed
    },
    approves(plan) {
      return typeof plan === 'object' && plan !== null && approved.has(plan)
    },
    compile(plan) {
      const result = validate(plan)
      if (!result.success) throw new PlanCompilationError(result.issues)
      return result.plan
    },
    checkPath(value, access: PathAccess = 'read') {
      return checkPathLexical(value, policy.scope, access)
    },
    checkPathOnDisk(value, access: PathAccess = 'read') {
      return checkPathOnDisk(value, policy.scope, access)
    },
    checkCommand,
    warnings,
    checkArguments(tool, args) {
      try {
        return checkToolArguments(policy, checkCommand, tool, args)
      } catch (error) {
        return [unreadableIssue('invalid_arguments', 'arguments', error)]
      }
    },
  }
  const exampleIssues = checkPolicyExamples(policy.policy, compiler)
  if (exampleIssues.length > 0) throw new PolicyError(exampleIssues)
  // A turn's one call, the usual turn, needs no general plan; any other plan, or a doubt, does.
  const validateTurn = (plan: unknown): PlanValidationResult => {
    let oneStep: PlanValidationResult | undefined
    try {
      oneStep = validateOneStep(policy, checkCommand, plan)
    } catch {
      oneStep = undefined
    }
    return oneStep ?? validate(plan, false)
  }
  return withUnrecordedValidate(compiler, validateTurn)
}
