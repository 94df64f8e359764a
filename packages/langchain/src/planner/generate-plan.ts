import type { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages'
import {
  formatIssues,
  type GeneratePlanResult,
  type GeneratePlanSharedOptions,
  type PlanAttempt,
  type PlanIssue,
} from '@plan/core'
import { canonicalJson, replanLimit } from '@plan/core/adapter'
import { plannerPrompt } from './planner-prompt.js'

/**
 * Options for {@link generatePlan}: `@plan/core`'s `GeneratePlanSharedOptions` (`compiler`,
 * `maxReplans`, `instructions`, `abortSignal`, the same in every adapter), a LangChain chat
 * model and the task.
 */
export interface GeneratePlanOptions extends GeneratePlanSharedOptions {
  /** A chat model that supports `withStructuredOutput`. */
  readonly model: BaseChatModel
  /** The task to plan: a text, or the conversation so far. */
  readonly prompt: string | readonly BaseMessage[]
}

function isParseFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  return (
    error.name === 'OutputParserException' ||
    error.name === 'SyntaxError' ||
    error.name === 'ZodError'
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
  structured: {
    invoke(messages: BaseMessage[], options: { signal?: AbortSignal }): Promise<unknown>
  },
  messages: BaseMessage[],
  signal: AbortSignal | undefined,
): Promise<{ readonly plan: unknown } | { readonly issue: PlanIssue }> {
  try {
    return { plan: await structured.invoke(messages, signal === undefined ? {} : { signal }) }
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
 * rejected, sends the issues back for a corrected plan, at most `maxReplans` times (by default
 * and at most the policy's `budgets.maxReplans`); a plan identical to one already rejected ends
 * the loop at once. The planner of every `@plan`
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
  const compiler = await options.compiler
  const maxReplans = replanLimit(compiler, options.maxReplans)
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
    const answer = await ask(structured, messages, options.abortSignal)
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
