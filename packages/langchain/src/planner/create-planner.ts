import type { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages'
import {
  type CompiledPlan,
  formatIssues,
  type PlanCompiler,
  PlanError,
  type PlanIssue,
} from '@plan/core'
import { canonicalJson } from '@plan/core/internal'
import { plannerPrompt } from './planner-prompt.js'

/** Options for {@link createPlanner}. */
export interface PlannerOptions {
  /** A chat model that supports `withStructuredOutput`. */
  readonly model: BaseChatModel
  /** The compiler (and so the policy) every plan is checked with. */
  readonly compiler: PlanCompiler | Promise<PlanCompiler>
  /**
   * How many times a rejected plan is sent back with its issues. Defaults to the policy's
   * `budgets.maxReplans`, and never exceeds it.
   */
  readonly maxReplans?: number
  /** Extra instructions appended to the planner's system prompt. */
  readonly instructions?: string
}

/** What a planner returns: an approved plan, or the issues of the last rejected one. */
export type PlannerResult =
  | {
      readonly success: true
      readonly plan: CompiledPlan
      /** Plans asked for, including the approved one. */
      readonly attempts: number
      readonly issues: readonly []
    }
  | {
      readonly success: false
      readonly attempts: number
      /** The issues of the last plan; a `replan_loop` issue when a rejected plan came back. */
      readonly issues: readonly PlanIssue[]
      /** The last plan the model proposed, as it came. */
      readonly lastPlan: unknown
    }

/** Asks a chat model for plans. */
export interface Planner {
  /** Plans a task; a rejected plan goes back to the model with its issues, a bounded number of times. */
  plan(task: string | readonly BaseMessage[]): Promise<PlannerResult>
}

function isParseFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  return (
    error.name === 'OutputParserException' ||
    error.name === 'SyntaxError' ||
    error.name === 'ZodError'
  )
}

/**
 * Creates a planner: it asks a chat model for a plan with structured output (the plan schema
 * narrowed to the policy, `compiler.planSchema()`), compiles it against the policy and, when the plan is rejected, sends the issues back
 * for a corrected plan, at most `maxReplans` times. A plan identical to one already rejected
 * ends the loop at once.
 *
 * @example
 * ```ts
 * const planner = createPlanner({ model, compiler: await createPlanCompiler(policy) })
 * const result = await planner.plan('Summarise README.md into NOTES.md')
 * if (result.success) console.log(result.plan.order)
 * else console.error(formatIssues(result.issues))
 * ```
 */
export function createPlanner(options: PlannerOptions): Planner {
  if (
    options.maxReplans !== undefined &&
    (!Number.isInteger(options.maxReplans) || options.maxReplans < 0)
  ) {
    throw new PlanError(
      `maxReplans must be a whole number of at least 0, got ${String(options.maxReplans)}.`,
      { code: 'invalid_configuration' },
    )
  }
  return {
    async plan(task) {
      const compiler = await options.compiler
      const limit = compiler.policy.policy.budgets.maxReplans
      const maxReplans = Math.min(options.maxReplans ?? limit, limit)
      const structured = options.model.withStructuredOutput(await compiler.planSchema(), {
        name: 'plan',
      })
      const messages: BaseMessage[] = [
        new SystemMessage(plannerPrompt(compiler, options.instructions)),
        ...(typeof task === 'string' ? [new HumanMessage(task)] : task),
      ]
      const rejected = new Set<string>()
      let attempts = 0
      let lastPlan: unknown
      let issues: readonly PlanIssue[] = []
      while (attempts <= maxReplans) {
        attempts += 1
        let proposed: unknown
        try {
          proposed = await structured.invoke(messages)
        } catch (error) {
          if (!isParseFailure(error)) throw error
          issues = [
            {
              code: 'invalid_plan',
              message: `The answer was not a plan: ${(error as Error).message}`,
              path: [],
              hint: 'Answer with a JSON plan object: { "steps": [...] }.',
            },
          ]
          messages.push(
            new HumanMessage(
              `That answer was not a valid plan:\n${formatIssues(issues)}\nReturn a corrected plan.`,
            ),
          )
          continue
        }
        lastPlan = proposed
        const result = compiler.validate(proposed)
        if (result.success) return { success: true, plan: result.plan, attempts, issues: [] }
        issues = result.issues
        let text: string
        try {
          text = canonicalJson(proposed)
        } catch {
          text = String(proposed)
        }
        if (rejected.has(text)) {
          issues = [
            ...issues,
            {
              code: 'replan_loop',
              message: 'The planner sent back a plan that was already rejected.',
              path: [],
              hint: 'Change the plan or the task.',
            },
          ]
          break
        }
        rejected.add(text)
        messages.push(
          new AIMessage(text),
          new HumanMessage(
            `The plan was rejected:\n${formatIssues(issues)}\nReturn a corrected plan that fixes every issue.`,
          ),
        )
      }
      return { success: false, attempts, issues, lastPlan }
    },
  }
}
