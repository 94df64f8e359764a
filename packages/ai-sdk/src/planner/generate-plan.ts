import {
  type CompiledPlan,
  formatIssues,
  type GeneratePlanResult,
  type GeneratePlanSharedOptions,
  type PlanAttempt,
  type PlanCompiler,
  type PlanIssue,
} from '@plan/core'
import { canonicalJson, modelStepPlannerHint, replanLimit } from '@plan/core/adapter'
import {
  generateText,
  type LanguageModel,
  type ModelMessage,
  NoObjectGeneratedError,
  Output,
} from 'ai'

/**
 * Options for {@link generatePlan}: `@plan/core`'s `GeneratePlanSharedOptions` (`compiler`,
 * `maxReplans`, `instructions`, `abortSignal`, the same in every adapter), the model and the
 * task.
 */
export interface GeneratePlanOptions extends GeneratePlanSharedOptions {
  /** The model that writes the plan. */
  readonly model: LanguageModel
  /** The task to plan: a text, or the conversation so far. */
  readonly prompt: string | readonly ModelMessage[]
}

function describePolicy(compiler: PlanCompiler): string {
  const policy = compiler.policy.policy
  const tools = Object.fromEntries(
    Object.entries(policy.tools).map(([name, tool]) => [
      name,
      { description: tool.description, args: tool.args, maxCalls: tool.maxCalls },
    ]),
  )
  return JSON.stringify(
    {
      workspaceRoots: compiler.policy.scope.roots,
      tools,
      allowedPrograms: policy.commands.allow,
      maxSteps: policy.budgets.maxSteps,
    },
    null,
    2,
  )
}

function plannerInstructions(compiler: PlanCompiler, extra: string | undefined): string {
  const lines = [
    'You plan tool calls. Return only a plan object: { "goal"?: string, "steps": [...] }.',
    'Each step is { "id", "tool", "args", "depends_on"? }. Ids use letters, digits, "_" and "-".',
    'A step may use the output of an earlier step with an argument value { "$ref": "<stepId>" } or { "$ref": "<stepId>.output.<field>" }; that adds a dependency.',
    'Use only the tools and arguments below; paths must stay inside the workspace roots; commands are one simple command of an allowed program, with no pipes, lists, redirections or substitutions.',
    `Policy:\n${describePolicy(compiler)}`,
  ]
  const modelSteps = modelStepPlannerHint(compiler.policy.tools)
  if (modelSteps !== undefined) lines.push(modelSteps)
  if (extra !== undefined) lines.push(extra)
  return lines.join('\n\n')
}

function outputIssue(error: NoObjectGeneratedError): PlanIssue {
  const cause = error.cause instanceof Error ? ` ${error.cause.message}` : ''
  return {
    code: 'invalid_plan',
    message: `The answer was not a plan object: ${error.message}${cause}`,
    path: [],
    hint: 'Answer with a JSON plan object that matches the schema.',
  }
}

/**
 * Asks a model for a plan with `generateText({ output: Output.object({ schema }) })` using
 * the plan schema narrowed to the policy (`compiler.planSchema()`), and compiles it against the
 * policy. A rejected plan is sent back with every issue, and the model re-plans, at most
 * `maxReplans` times (by default and at most the policy's `budgets.maxReplans`); a plan
 * identical to one already rejected ends the loop at once. The planner of every `@plan`
 * adapter has this name and returns `@plan/core`'s `GeneratePlanResult`.
 *
 * @example
 * ```ts
 * const planned = await generatePlan({ model, compiler, prompt: 'Run the tests and fix the first failure' })
 * if (!planned.success) throw new PlanCompilationError(planned.issues)
 * const guard = createPlanGuard(planned.plan, { compiler })
 * ```
 */
export async function generatePlan(options: GeneratePlanOptions): Promise<GeneratePlanResult> {
  const compiler = await options.compiler
  const maxAttempts = replanLimit(compiler, options.maxReplans) + 1
  const instructions = plannerInstructions(compiler, options.instructions)
  const { prompt } = options
  const messages: ModelMessage[] =
    typeof prompt === 'string' ? [{ role: 'user', content: prompt }] : [...prompt]
  const rejected: PlanAttempt[] = []
  const seen = new Set<string>()
  let lastPlan: unknown
  for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
    const answer = await askForPlan(options, compiler, instructions, messages)
    lastPlan = answer.plan
    if (answer.issues.length === 0 && answer.compiled !== undefined) {
      return { success: true, plan: answer.compiled, attempts: attempt, rejected, issues: [] }
    }
    rejected.push({ plan: answer.plan, issues: answer.issues })
    const key = planKey(answer.plan)
    if (key !== undefined && seen.has(key)) {
      // the model sent back a plan that was already rejected: asking again is a loop
      const issues = [...answer.issues, replanLoopIssue()]
      return { success: false, attempts: attempt, rejected, issues, lastPlan }
    }
    if (key !== undefined) seen.add(key)
    messages.push(
      { role: 'assistant', content: answer.text },
      {
        role: 'user',
        content: `The plan was rejected:\n${formatIssues(answer.issues)}\nReturn a corrected plan.`,
      },
    )
  }
  const issues = rejected[rejected.length - 1]?.issues ?? []
  return { success: false, attempts: maxAttempts, rejected, issues, lastPlan }
}

/** One answer of the planner model: the plan, its text, and the compiled plan or the issues. */
interface PlanAnswer {
  readonly plan: unknown
  readonly text: string
  readonly compiled: CompiledPlan | undefined
  readonly issues: readonly PlanIssue[]
}

async function askForPlan(
  options: GeneratePlanOptions,
  compiler: PlanCompiler,
  instructions: string,
  messages: readonly ModelMessage[],
): Promise<PlanAnswer> {
  try {
    const result = await generateText({
      model: options.model,
      instructions,
      messages: [...messages],
      output: Output.object({ schema: await compiler.planSchema(), name: 'plan' }),
      ...(options.abortSignal === undefined ? {} : { abortSignal: options.abortSignal }),
    })
    const plan: unknown = result.output
    const validation = compiler.validate(plan)
    return validation.success
      ? { plan, text: JSON.stringify(plan), compiled: validation.plan, issues: [] }
      : { plan, text: JSON.stringify(plan), compiled: undefined, issues: validation.issues }
  } catch (error) {
    if (!NoObjectGeneratedError.isInstance(error)) throw error
    return {
      plan: undefined,
      text: error.text ?? '',
      compiled: undefined,
      issues: [outputIssue(error)],
    }
  }
}

/** The plan as canonical JSON, to recognise a rejected plan that comes back. */
function planKey(plan: unknown): string | undefined {
  if (plan === undefined) return undefined
  try {
    return canonicalJson(plan)
  } catch {
    return undefined
  }
}

function replanLoopIssue(): PlanIssue {
  return {
    code: 'replan_loop',
    message: 'The model returned a plan that was already rejected.',
    path: [],
    hint: 'Stop re-planning and report what is blocking the task.',
  }
}
