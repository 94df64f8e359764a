import type { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages'
import {
  formatIssues,
  type GeneratePlanResult,
  type PlanAttempt,
  type PlanCompiler,
  PlanError,
  type PlanIssue,
} from '@plan/core'
import { canonicalJson } from '@plan/core/adapter'
import { plannerPrompt } from './planner-prompt.js'

/** Options for {@link generatePlan}. */
export interface GeneratePlanOptions {
  /** A chat model that supports `withStructuredOutput`. */
  readonly model: BaseChatModel
  /** The compiler (and so the policy) every plan is checked with. */
  readonly compiler: PlanCompiler | PromiseLike<PlanCompiler>
  /** The task to plan: a text, or the conversation so far. */
  readonly prompt: string | readonly BaseMessage[]
  /**
   * How many times a rejected plan is sent back with its issues. Defaults to the policy's
   * `budgets.maxReplans`, and never exceeds it.
   */
  readonly maxReplans?: number
  /** Extra instructions appended to the planner's system prompt. */
  readonly instructions?: string
}

function isParseFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  return (
    error.name === 'OutputParserException' ||
    error.name === 'SyntaxError' ||
    error.name === 'ZodError'
  )
}

/** Throws `PlanError` (`invalid_configuration`) for a `maxReplans` that is not a count. */
export function checkMaxReplans(maxReplans: number | undefined): void {
  if (maxReplans === undefined || (Number.isInteger(maxReplans) && maxReplans >= 0)) return
  throw new PlanError(
    `maxReplans must be a whole number of at least 0, got ${String(maxReplans)}.`,
    { code: 'invalid_configuration' },
  )
}

function textOf(plan: unknown): string {
  try {
    return canonicalJson(plan)
  } catch {
    return String(plan)
  }
}

const REPLAN_LOOP: PlanIssue = {
  code: 'replan_loop',
  message: 'The planner sent back a plan that was already rejected.',
  path: [],
  hint: 'Change the plan or the task.',
}

/** One answer of the model: a plan, or the issue of an answer that was not one. */
async function ask(
  structured: { invoke(messages: BaseMessage[]): Promise<unknown> },
  messages: BaseMessage[],
): Promise<{ readonly plan: unknown } | { readonly issue: PlanIssue }> {
  try {
    return { plan: await structured.invoke(messages) }
  } catch (error) {
    if (!isParseFailure(error)) throw error
    return {
      issue: {
        code: 'invalid_plan',
        message: `The answer was not a plan: ${(error as Error).message}`,
        path: [],
        hint: 'Answer with a JSON plan object: { "steps": [...] }.',
      },
    }
  }
}

/**
 * Asks a LangChain chat model for a plan with structured output (the plan schema narrowed to
 * the policy, `compiler.planSchema()`), compiles it against the policy and, when the plan is
 * rejected, sends the issues back for a corrected plan, at most `maxReplans` times; a plan
 * identical to one already rejected ends the loop at once. The planner of every `@plan`
 * adapter has this name and returns `@plan/core`'s `GeneratePlanResult`.
 *
 * @example
 * ```ts
 * const result = await generatePlan({ model, compiler, prompt: 'Summarise README.md into NOTES.md' })
 * if (result.success) console.log(result.plan.order)
 * else console.error(formatIssues(result.issues))
 * ```
 */
export async function generatePlan(options: GeneratePlanOptions): Promise<GeneratePlanResult> {
  checkMaxReplans(options.maxReplans)
  const compiler = await options.compiler
  const limit = compiler.policy.policy.budgets.maxReplans
  const maxReplans = Math.min(options.maxReplans ?? limit, limit)
  const structured = options.model.withStructuredOutput(await compiler.planSchema(), {
    name: 'plan',
  })
  const { prompt } = options
  const messages: BaseMessage[] = [
    new SystemMessage(plannerPrompt(compiler, options.instructions)),
    ...(typeof prompt === 'string' ? [new HumanMessage(prompt)] : prompt),
  ]
  const seen = new Set<string>()
  const rejected: PlanAttempt[] = []
  let lastPlan: unknown
  let issues: readonly PlanIssue[] = []
  for (let attempts = 1; attempts <= maxReplans + 1; attempts += 1) {
    const answer = await ask(structured, messages)
    if ('issue' in answer) {
      issues = [answer.issue]
      rejected.push({ plan: undefined, issues })
      messages.push(
        new HumanMessage(
          `That answer was not a valid plan:\n${formatIssues(issues)}\nReturn a corrected plan.`,
        ),
      )
      continue
    }
    lastPlan = answer.plan
    const result = compiler.validate(answer.plan)
    if (result.success) return { success: true, plan: result.plan, attempts, rejected, issues: [] }
    const text = textOf(answer.plan)
    issues = seen.has(text) ? [...result.issues, REPLAN_LOOP] : result.issues
    rejected.push({ plan: answer.plan, issues })
    if (seen.has(text)) return { success: false, attempts, rejected, issues, lastPlan }
    seen.add(text)
    messages.push(
      new AIMessage(text),
      new HumanMessage(
        `The plan was rejected:\n${formatIssues(issues)}\nReturn a corrected plan that fixes every issue.`,
      ),
    )
  }
  return { success: false, attempts: maxReplans + 1, rejected, issues, lastPlan }
}
