import { randomUUID } from 'node:crypto'
import { AIMessage, type BaseMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { Command, MemorySaver } from '@langchain/langgraph'
import { planGuardMiddleware } from '@plan/langchain'
import { createAgent, HumanMessage } from 'langchain'
import type { ReplayMode } from './replay-policy.js'
import { langchainTools } from './replay-tools.js'
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

/** The scripted agent as LangChain's fake model, reading the ready steps from the prompt. */
function agentModel(agent: Agent) {
  const model = fakeModel()
  for (let turn = 0; turn < MAX_MODEL_CALLS; turn += 1)
    model.respond((messages) => {
      const ready = readyFrom(messages)
      return toMessage(
        agent({ history: historyOf(messages), ...(ready === undefined ? {} : { ready }) }),
        turn,
      )
    })
  return model
}

/** The model that answers the plan's extraction steps, from the scenario's script. */
function quarantinedModel(scenario: Scenario) {
  const quarantined = fakeModel()
  for (let turn = 0; turn < MAX_MODEL_CALLS; turn += 1)
    quarantined.respond((messages) => {
      const [system, prompt] = messages.map((message) => message.text)
      return new AIMessage(
        scenario.quarantined?.(modelStepRequest(system ?? '', prompt ?? '')) ?? '',
      )
    })
  return quarantined
}

type Paused = {
  readonly __interrupt__?: readonly {
    readonly value?: { readonly actionRequests?: readonly { readonly description?: string }[] }
  }[]
}

/** Runs the agent; each pause for review is answered by the reviewer and the run resumed. */
async function invokeReviewed(
  agent: { invoke(input: unknown, config: unknown): Promise<unknown> },
  task: string,
  reviewer: FatiguedReviewer | undefined,
): Promise<void> {
  const config = { configurable: { thread_id: randomUUID() }, recursionLimit: 200 }
  let result = (await agent.invoke({ messages: [new HumanMessage(task)] }, config)) as Paused
  for (let round = 0; reviewer !== undefined && round < MAX_MODEL_CALLS; round += 1) {
    const requests = result.__interrupt__?.[0]?.value?.actionRequests
    if (requests === undefined || requests.length === 0) return
    const decisions = requests.map((request) =>
      reviewer.answer(request.description ?? '')
        ? { type: 'approve' as const }
        : { type: 'reject' as const, message: 'The reviewer refused this call.' },
    )
    result = (await agent.invoke(new Command({ resume: { decisions } }), config)) as Paused
  }
}

const runWithLangChain: ScenarioRunner = async ({
  scenario,
  mode,
  compiler,
  tools,
  agent,
  refuse,
  reviewer,
}) => {
  const middleware =
    mode === 'baseline'
      ? []
      : [
          planGuardMiddleware({
            compiler,
            ...(mode === 'plan'
              ? { plan: { steps: [...scenario.plan] }, extractionModel: quarantinedModel(scenario) }
              : {}),
            onDecision: (decision) => {
              if (!decision.allowed) refuse()
            },
          }),
        ]
  const created = createAgent({
    model: agentModel(agent),
    tools: langchainTools(tools),
    middleware,
    ...(reviewer === undefined ? {} : { checkpointer: new MemorySaver() }),
  })
  await invokeReviewed(created, scenario.task, reviewer)
}

/** Runs one scenario through a LangChain `createAgent` in one mode. */
export function runLangChain(scenario: Scenario, mode: ReplayMode): Promise<RunOutcome> {
  return runScenario(scenario, mode, runWithLangChain)
}
