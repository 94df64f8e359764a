import {
  type CompiledPlan,
  formatIssues,
  modelStepPlannerHint,
  type PlanCompiler,
  type PlanIssue,
} from '@plan/core'
import {
  generateText,
  type LanguageModel,
  type ModelMessage,
  NoObjectGeneratedError,
  Output,
} from 'ai'

/** Options for {@link generatePlan}. */
export interface GeneratePlanOptions {
  /** The model that writes the plan. */
  readonly model: LanguageModel
  /** The compiler (and so the policy) the plan must pass. */
  readonly compiler: PlanCompiler
  /** The task to plan. */
  readonly prompt: string
  /** Extra instructions, added after the planner's own. */
  readonly instructions?: string
  /** Most plans asked for, the first included. Default 3. */
  readonly maxAttempts?: number
  /** Cancels the model calls. */
  readonly abortSignal?: AbortSignal
}

/** One rejected attempt: what the model answered and why it was rejected. */
export interface PlanAttempt {
  /** The plan the model returned, or undefined when it returned no valid plan object. */
  readonly plan: unknown
  readonly issues: readonly PlanIssue[]
}

/** The result of {@link generatePlan}. */
export type GeneratePlanResult =
  | {
      readonly success: true
      readonly plan: CompiledPlan
      /** The rejected attempts before the approved one. */
      readonly rejected: readonly PlanAttempt[]
    }
  | {
      readonly success: false
      /** The issues of the last attempt. */
      readonly issues: readonly PlanIssue[]
      readonly rejected: readonly PlanAttempt[]
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
 * the plan schema narrowed to the policy (`compiler.planSchema()`), and compiles it against the policy. A rejected plan is sent back with
 * every issue, and the model re-plans, at most `maxAttempts` times in all.
 *
 * @example
 * ```ts
 * const planned = await generatePlan({ model, compiler, prompt: 'Run the tests and fix the first failure' })
 * if (!planned.success) throw new PlanCompilationError(planned.issues)
 * const guard = createPlanGuard(planned.plan, { compiler })
 * ```
 */
export async function generatePlan(options: GeneratePlanOptions): Promise<GeneratePlanResult> {
  const maxAttempts = Math.max(1, Math.floor(options.maxAttempts ?? 3))
  const instructions = plannerInstructions(options.compiler, options.instructions)
  const messages: ModelMessage[] = [{ role: 'user', content: options.prompt }]
  const rejected: PlanAttempt[] = []
  for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
    let plan: unknown
    let issues: readonly PlanIssue[]
    let answer: string
    try {
      const result = await generateText({
        model: options.model,
        instructions,
        messages,
        output: Output.object({ schema: await options.compiler.planSchema(), name: 'plan' }),
        ...(options.abortSignal === undefined ? {} : { abortSignal: options.abortSignal }),
      })
      plan = result.output
      answer = JSON.stringify(plan)
      const validation = options.compiler.validate(plan)
      if (validation.success) return { success: true, plan: validation.plan, rejected }
      issues = validation.issues
    } catch (error) {
      if (!NoObjectGeneratedError.isInstance(error)) throw error
      plan = undefined
      answer = error.text ?? ''
      issues = [outputIssue(error)]
    }
    rejected.push({ plan, issues })
    messages.push(
      { role: 'assistant', content: answer },
      {
        role: 'user',
        content: `The plan was rejected:\n${formatIssues(issues)}\nReturn a corrected plan.`,
      },
    )
  }
  const last = rejected[rejected.length - 1]
  return { success: false, issues: last?.issues ?? [], rejected }
}
