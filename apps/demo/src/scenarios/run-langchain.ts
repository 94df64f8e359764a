import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages'
import { createPlanCompiler, type DecisionEvent, type PolicyInput } from '@plan/core'
import { planGuardMiddleware } from '@plan/langchain'
import { scriptedModel } from '@plan/langchain/test'
import { createAgent } from 'langchain'
import { createDemoTools, type RunLog } from '../demo-tools.js'
import { langchainTools } from '../framework-tools.js'
import { type Proposal, summarize } from '../proposals.js'
import type { RealModel } from '../real-model.js'
import type { Turn } from '../scripted-models.js'

/** Runs a scripted (or real) LangChain agent with `planGuardMiddleware` in per-turn mode. */
export async function runLangchainAgent(options: {
  policy: PolicyInput
  turns: readonly Turn[]
  prompt: string
  /** A real model instead of the script (when an API key is set). */
  model?: RealModel | undefined
}) {
  const ran: RunLog = []
  const compiler = await createPlanCompiler(options.policy)
  const decisions: DecisionEvent[] = []
  const agent = createAgent({
    model:
      options.model === undefined
        ? scriptedModel(options.turns)
        : new (await import('@langchain/openai')).ChatOpenAI({ model: options.model.name }),
    tools: langchainTools(createDemoTools(compiler, ran)),
    middleware: [
      planGuardMiddleware({ compiler, onDecision: (decision) => decisions.push(decision) }),
    ],
  })
  const result = await agent.invoke(
    { messages: [new HumanMessage(options.prompt)] },
    { recursionLimit: 60 },
  )
  const messages = result.messages as BaseMessage[]
  const proposals: Proposal[] = []
  for (const message of messages) {
    if (!AIMessage.isInstance(message)) continue
    for (const call of message.tool_calls ?? []) {
      const id = call.id ?? `call_${proposals.length}`
      const decision = decisions.find((entry) => entry.kind === 'call' && entry.callId === id)
      const turn = decisions.find(
        (entry) => entry.kind === 'turn' && !entry.allowed && entry.callIds.includes(id),
      )
      const found = decision ?? turn
      proposals.push({
        id,
        tool: call.name,
        args: call.args,
        allowed: decision?.allowed ?? (turn === undefined ? undefined : false),
        issues: found?.issues ?? [],
      })
    }
  }
  const last = messages.at(-1)
  return { ran, ...summarize(proposals), answer: last === undefined ? '' : String(last.text ?? '') }
}
