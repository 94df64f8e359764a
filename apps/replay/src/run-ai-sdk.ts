import { createPlanGuardedTools } from '@plan/ai-sdk'
import type { PlanGuard } from '@plan/core'
import { generateText, type ModelMessage, stepCountIs } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import type { ReplayMode } from './replay-policy.js'
import { aiSdkTools } from './replay-tools.js'
import type { FatiguedReviewer } from './reviewer.js'
import type { RunOutcome } from './run-outcome.js'
import { runScenario, type ScenarioRunner } from './run-scenario.js'
import {
  type Agent,
  modelStepRequest,
  type ReadyCall,
  type Reply,
  type Scenario,
  type Turn,
} from './scenario.js'

type CallOptions = Parameters<MockLanguageModelV4['doGenerate']>[0]
type GenerateResult = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
}

function resultText(output: { type: string; value?: unknown; reason?: unknown }): CallResult {
  const ok = output.type === 'text' || output.type === 'json' || output.type === 'content'
  const value = output.value ?? output.reason ?? ''
  return { ok, text: typeof value === 'string' ? value : JSON.stringify(value) }
}

type CallResult = Turn['results'][number]

function historyOf(options: CallOptions): Turn[] {
  const results = new Map<string, CallResult>()
  for (const message of options.prompt) {
    if (message.role !== 'tool') continue
    for (const part of message.content)
      if (part.type === 'tool-result')
        results.set(part.toolCallId, resultText(part.output as never))
  }
  const turns: Turn[] = []
  for (const message of options.prompt) {
    if (message.role !== 'assistant') continue
    const calls = message.content.filter((part) => part.type === 'tool-call')
    if (calls.length === 0) continue
    turns.push({
      calls: calls.map((part) => ({
        tool: part.toolName,
        args: (typeof part.input === 'string' ? JSON.parse(part.input) : part.input) as Record<
          string,
          unknown
        >,
      })),
      results: calls.map((part) => results.get(part.toolCallId) ?? { ok: false, text: '' }),
    })
  }
  return turns
}

function generated(reply: Reply, turn: number): GenerateResult {
  if ('text' in reply)
    return {
      content: [{ type: 'text', text: reply.text }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage,
      warnings: [],
    }
  return {
    content: reply.calls.map((call, index) => ({
      type: 'tool-call' as const,
      toolCallId: `t${turn}_${index}`,
      toolName: call.tool,
      input: JSON.stringify(call.args),
    })),
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage,
    warnings: [],
  }
}

function textOf(options: CallOptions, role: 'system' | 'user'): string {
  return options.prompt
    .filter((message) => message.role === role)
    .map((message) =>
      typeof message.content === 'string'
        ? message.content
        : message.content.map((part) => ('text' in part ? part.text : '')).join(''),
    )
    .join('\n')
}

/** The scripted agent as the AI SDK's mock model; `readyOf` gives the plan's ready steps. */
function agentModel(agent: Agent, readyOf: () => ReadyCall[] | undefined): MockLanguageModelV4 {
  let turn = 0
  return new MockLanguageModelV4({
    doGenerate: async (options) => {
      const ready = readyOf()
      return generated(
        agent({ history: historyOf(options), ...(ready === undefined ? {} : { ready }) }),
        turn++,
      )
    },
  })
}

/** The model that answers the plan's extraction steps, from the scenario's script. */
function quarantinedModel(scenario: Scenario): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async (options) => {
      const request = modelStepRequest(textOf(options, 'system'), textOf(options, 'user'))
      return generated({ text: scenario.quarantined?.(request) ?? '' }, 0)
    },
  })
}

/** The plan's ready steps with their arguments resolved, as the plan-following agent reads them. */
function readySteps(guard: PlanGuard): ReadyCall[] {
  return guard.readySteps().flatMap((step) => {
    const resolved = guard.resolveArgs(step.id)
    return resolved.success ? [{ id: step.id, tool: step.tool, args: resolved.args }] : []
  })
}

type Generate = (
  input: { prompt: string } | { messages: ModelMessage[] },
) => ReturnType<typeof generateText>

/**
 * Runs the loop; the approval requests of its last step go to the reviewer, and the loop runs
 * again with the answers, until a step asks nothing.
 */
async function generateReviewed(
  generate: Generate,
  task: string,
  reviewer: FatiguedReviewer | undefined,
): Promise<void> {
  let messages: ModelMessage[] = [{ role: 'user', content: task }]
  let result = await generate({ prompt: task })
  for (let round = 0; reviewer !== undefined && round < 40; round += 1) {
    const requests = (result.steps.at(-1)?.content ?? []).filter(
      (part) => part.type === 'tool-approval-request' && part.isAutomatic !== true,
    )
    if (requests.length === 0) return
    messages = [
      ...messages,
      ...result.responseMessages,
      {
        role: 'tool',
        content: requests.map((request) => ({
          type: 'tool-approval-response' as const,
          approvalId: 'approvalId' in request ? request.approvalId : '',
          approved: reviewer.answer('reason' in request ? String(request.reason ?? '') : ''),
        })),
      },
    ]
    result = await generate({ messages })
  }
}

const runWithAiSdk: ScenarioRunner = async ({
  scenario,
  mode,
  compiler,
  tools,
  agent,
  refuse,
  reviewer,
}) => {
  const toolSet = aiSdkTools(tools)
  let readyOf: () => ReadyCall[] | undefined = () => undefined
  const model = agentModel(agent, () => readyOf())
  if (mode === 'baseline') {
    await generateText({ model, tools: toolSet, stopWhen: stepCountIs(40), prompt: scenario.task })
    return
  }
  const guarded = await createPlanGuardedTools({
    tools: toolSet,
    compiler,
    ...(mode === 'plan'
      ? { plan: { steps: [...scenario.plan] }, extractionModel: quarantinedModel(scenario) }
      : {}),
    onDecision: (event) => {
      if (event.kind === 'call' && !event.allowed) refuse()
    },
  })
  const guard = guarded.guard
  if (mode === 'plan') readyOf = () => readySteps(guard)
  const options = {
    model,
    tools: guarded.tools,
    toolApproval: guarded.toolApproval,
    prepareStep: guarded.prepareStep,
    stopWhen: [guarded.stopWhen, stepCountIs(40)],
  }
  await generateReviewed((input) => generateText({ ...options, ...input }), scenario.task, reviewer)
  if (guard.stopReason() !== undefined) refuse()
}

/** Runs one scenario through AI SDK `generateText` in one mode. */
export function runAiSdk(scenario: Scenario, mode: ReplayMode): Promise<RunOutcome> {
  return runScenario(scenario, mode, runWithAiSdk)
}
