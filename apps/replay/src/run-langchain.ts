import { AIMessage, type BaseMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { createPlanCompiler } from '@plan/core'
import { planGuardMiddleware } from '@plan/langchain'
import { createAgent, HumanMessage } from 'langchain'
import { type ReplayMode, replayPolicy } from './replay-policy.js'
import { createReplayRepo } from './replay-repo.js'
import { createReplayTools, langchainTools, type ToolEffect } from './replay-tools.js'
import type { RunOutcome } from './run-outcome.js'
import {
  type Agent,
  modelStepRequest,
  planFollower,
  type ReadyCall,
  type Reply,
  type Scenario,
  type Turn,
} from './scenario.js'

const MAX_MODEL_CALLS = 40

function historyOf(messages: readonly BaseMessage[]): Turn[] {
  const turns: Turn[] = []
  for (const [index, message] of messages.entries()) {
    if (!AIMessage.isInstance(message) || (message.tool_calls ?? []).length === 0) continue
    const calls = message.tool_calls ?? []
    const answers = messages.slice(index + 1).filter((other) => ToolMessage.isInstance(other))
    turns.push({
      calls: calls.map((call) => ({ tool: call.name, args: call.args })),
      results: calls.map((call) => {
        const answer = answers.find((other) => (other as ToolMessage).tool_call_id === call.id) as
          | ToolMessage
          | undefined
        return { ok: answer !== undefined && answer.status !== 'error', text: answer?.text ?? '' }
      }),
    })
  }
  return turns
}

/** The ready steps the middleware lists in the system prompt (plan mode), as calls. */
function readyFrom(messages: readonly BaseMessage[]): ReadyCall[] | undefined {
  const system = messages.find((message) => SystemMessage.isInstance(message))?.text
  if (system === undefined || !system.includes('Ready steps of the approved plan')) return undefined
  const ready: ReadyCall[] = []
  for (const line of system.split('\n')) {
    const match = /^- step "([^"]+)": ([a-z_]+) (\{.*\})$/u.exec(line)
    if (match === null) continue
    try {
      ready.push({
        id: match[1] as string,
        tool: match[2] as string,
        args: JSON.parse(match[3] as string),
      })
    } catch {
      // a shortened argument list cannot be called exactly
    }
  }
  return ready
}

function toMessage(reply: Reply, turn: number): AIMessage {
  if ('text' in reply) return new AIMessage(reply.text)
  return new AIMessage({
    content: '',
    tool_calls: reply.calls.map((call, index) => ({
      id: `t${turn}_${index}`,
      name: call.tool,
      args: call.args,
      type: 'tool_call' as const,
    })),
  })
}

/** Runs one scenario through a LangChain `createAgent` in one mode. */
export async function runLangChain(scenario: Scenario, mode: ReplayMode): Promise<RunOutcome> {
  const repo = await createReplayRepo()
  const effects: ToolEffect[] = []
  let refused = false
  let crashed: string | undefined
  let completed = false
  try {
    for (const [file, content] of Object.entries(scenario.files ?? {}))
      await repo.write(file, content)
    const compiler = await createPlanCompiler(replayPolicy(repo.root, mode))
    const tools = langchainTools(createReplayTools(compiler, scenario.pages ?? {}, effects))
    const agent: Agent = mode === 'plan' ? planFollower(scenario) : scenario.agent
    const model = fakeModel()
    for (let turn = 0; turn < MAX_MODEL_CALLS; turn += 1)
      model.respond((messages) => {
        const ready = readyFrom(messages)
        return toMessage(
          agent({ history: historyOf(messages), ...(ready === undefined ? {} : { ready }) }),
          turn,
        )
      })
    const quarantined = fakeModel()
    for (let turn = 0; turn < MAX_MODEL_CALLS; turn += 1)
      quarantined.respond((messages) => {
        const [system, prompt] = messages.map((message) => message.text)
        return new AIMessage(
          scenario.quarantined?.(modelStepRequest(system ?? '', prompt ?? '')) ?? '',
        )
      })
    const middleware =
      mode === 'baseline'
        ? []
        : [
            planGuardMiddleware({
              compiler,
              ...(mode === 'plan'
                ? { plan: { steps: [...scenario.plan] }, extractionModel: quarantined }
                : {}),
              onDecision: (decision) => {
                if (!decision.allowed) refused = true
              },
            }),
          ]
    const created = createAgent({ model, tools, middleware })
    await created.invoke({ messages: [new HumanMessage(scenario.task)] }, { recursionLimit: 200 })
    completed = scenario.completed === undefined ? false : await scenario.completed(repo, effects)
  } catch (error) {
    crashed = error instanceof Error ? error.message : String(error)
  } finally {
    await repo.cleanup()
  }
  return {
    scenario: scenario.id,
    completed,
    harmful: scenario.harmful?.(effects) ?? false,
    refused,
    crashed,
    effects,
  }
}
