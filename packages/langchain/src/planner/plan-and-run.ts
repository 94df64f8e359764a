import type { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { type BaseMessage, HumanMessage } from '@langchain/core/messages'
import type { ClientTool } from '@langchain/core/tools'
import {
  type AdapterGuardSettings,
  type AdapterOptions,
  type CompiledPlan,
  PlanCompilationError,
  type PlanCompiler,
  type PolicyInput,
  type ResolvedPolicy,
} from '@plan/core'
import { resolveCompiler } from '@plan/core/adapter'
import { createAgent } from 'langchain'
import { planGuardMiddleware } from '../middleware/plan-guard-middleware.js'
import type { LangChainGuardSettings } from '../middleware/plan-guard-options.js'
import { generatePlan } from './generate-plan.js'

/** Options for {@link planAndRun}. */
export interface PlanAndRunOptions {
  /** What the agent should do. */
  readonly task: string
  /** The model that runs the plan (and plans it, unless `plannerModel` is given). */
  readonly model: BaseChatModel
  /** The model asked for the plan; it must support `withStructuredOutput`. */
  readonly plannerModel?: BaseChatModel
  readonly tools: readonly ClientTool[]
  /** The policy, as an object or already resolved. Give this or `compiler`. */
  readonly policy?: PolicyInput | ResolvedPolicy
  /** A compiler (or the promise of one). Give this or `policy`. */
  readonly compiler?: PlanCompiler | Promise<PlanCompiler>
  /** Re-plans after a rejection; defaults to (and never exceeds) the policy's `maxReplans`. */
  readonly maxReplans?: number
  /** Extra instructions for the planner. */
  readonly instructions?: string
  /** The agent's system prompt. */
  readonly systemPrompt?: string
  /** Options of the guard middleware (the plan and the policy are set here). */
  readonly guard?: LangChainGuardSettings &
    AdapterGuardSettings &
    Pick<AdapterOptions, 'onDecision'>
}

/** What {@link planAndRun} returns. */
export interface PlanAndRunResult {
  /** The approved plan the agent ran. */
  readonly plan: CompiledPlan
  /** Plans asked for, including the approved one. */
  readonly attempts: number
  /** The agent's conversation, ending with its answer. */
  readonly messages: readonly BaseMessage[]
}

/**
 * Plans a task with a chat model, has the plan approved against the policy (re-planning with
 * the issues when it is rejected), then runs a LangChain agent in plan mode: only the approved
 * steps can run. Throws `PlanCompilationError` with the last issues when no plan is approved.
 *
 * @example
 * ```ts
 * const { plan, messages } = await planAndRun({
 *   task: 'Summarise README.md into NOTES.md',
 *   model,
 *   tools: [viewFile, writeFile],
 *   policy,
 * })
 * ```
 */
export async function planAndRun(options: PlanAndRunOptions): Promise<PlanAndRunResult> {
  const compiler = await resolveCompiler(options, 'planAndRun')
  const planned = await generatePlan({
    model: options.plannerModel ?? options.model,
    compiler,
    prompt: options.task,
    ...(options.maxReplans === undefined ? {} : { maxReplans: options.maxReplans }),
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
  })
  if (!planned.success) throw new PlanCompilationError(planned.issues)
  const agent = createAgent({
    model: options.model,
    tools: [...options.tools],
    ...(options.systemPrompt === undefined ? {} : { systemPrompt: options.systemPrompt }),
    middleware: [planGuardMiddleware({ ...options.guard, compiler, plan: planned.plan })],
  })
  const result = await agent.invoke({ messages: [new HumanMessage(options.task)] })
  return { plan: planned.plan, attempts: planned.attempts, messages: result.messages }
}
