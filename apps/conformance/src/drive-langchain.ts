import { HumanMessage } from '@langchain/core/messages'
import { planGuardMiddleware } from '@plan/langchain'
import { createTestWorkspace, recordingTools, scriptedModel } from '@plan/langchain/test'
import { createAgent } from 'langchain'
import { auditTrail, decisions, type Outcome, type Scenario } from './scenario.js'

/** Runs the scenario through a LangChain agent with `planGuardMiddleware`, one call a turn. */
export async function driveLangChain(scenario: Scenario): Promise<Outcome> {
  await using workspace = await createTestWorkspace()
  const { tools, ran } = recordingTools()
  const { calls, turns, onDecision } = decisions()
  const { audit, trail } = auditTrail()
  const model = scriptedModel([
    ...scenario.calls.map((call, index) => ({
      calls: [{ id: `call_${index}`, tool: call.tool, args: { ...call.args } }],
    })),
    { text: 'Done.' },
  ])
  const middleware = planGuardMiddleware({
    policy: scenario.policy(workspace.root),
    ...(scenario.plan === undefined ? {} : { plan: [...scenario.plan] }),
    ...(scenario.maskTools === undefined ? {} : { maskTools: scenario.maskTools }),
    onDecision,
    audit,
  })
  const agent = createAgent({ model, tools, middleware: [middleware] })
  await agent.invoke({ messages: [new HumanMessage('Do the task.')] })
  return {
    calls,
    turns,
    audit: trail,
    ran: ran.map((entry) => entry.replaceAll(workspace.root, '<root>')),
  }
}
