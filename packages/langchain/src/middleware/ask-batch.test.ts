import { randomUUID } from 'node:crypto'
import { HumanMessage, ToolMessage } from '@langchain/core/messages'
import { Command, MemorySaver } from '@langchain/langgraph'
import { createAgent } from 'langchain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { scriptedModel } from '../test/index.js'
import { type AgentWorkspace, createAgentWorkspace, toolMessages } from '../test-utils/workspace.js'
import { planGuardMiddleware } from './plan-guard-middleware.js'

let workspace: AgentWorkspace

beforeEach(async () => {
  workspace = await createAgentWorkspace()
})

afterEach(async () => {
  await workspace.cleanup()
})

type Paused = {
  __interrupt__?: {
    value: { actionRequests: { name: string; args: unknown; description: string }[] }
  }[]
}

function agentWith(maxQuestions?: number) {
  const model = scriptedModel([
    { calls: [{ id: 'read', tool: 'view_file', args: { file: 'README.md' } }] },
    {
      calls: [
        { id: 'one', tool: 'run_command', args: { command: 'echo one' } },
        { id: 'list', tool: 'run_command', args: { command: 'ls' } },
        { id: 'two', tool: 'run_command', args: { command: 'echo two' } },
      ],
    },
    { text: 'Done.' },
  ])
  return createAgent({
    model,
    tools: workspace.tools,
    checkpointer: new MemorySaver(),
    middleware: [
      planGuardMiddleware({
        policy: workspace.policy({
          trust: {
            tainted: {
              commands: ['ls'],
              onRefuse: 'ask',
              ...(maxQuestions === undefined ? {} : { maxQuestions }),
            },
          },
        }),
      }),
    ],
  })
}

describe('planGuardMiddleware with onRefuse "ask"', () => {
  it('should ask about every refusal of a turn in one interrupt, with the reason and the source', async () => {
    const agent = agentWith()
    const config = { configurable: { thread_id: randomUUID() } }
    const paused = (await agent.invoke({ messages: [new HumanMessage('Go.')] }, config)) as Paused
    expect(paused.__interrupt__).toHaveLength(1)
    const requests = paused.__interrupt__?.[0]?.value.actionRequests ?? []
    expect(requests.map((request) => request.args)).toEqual([
      { command: 'echo one' },
      { command: 'echo two' },
    ])
    expect(requests[0]?.description).toContain('tainted_run')
    expect(requests[0]?.description).toContain('file:README.md')
    expect(requests[0]?.description).toContain('1 of 2')
    const resumed = await agent.invoke(
      new Command({
        resume: { decisions: [{ type: 'approve' }, { type: 'reject', message: 'Not this one.' }] },
      }),
      config,
    )
    const answers = toolMessages(resumed.messages)
    expect(workspace.ran.filter((entry) => entry.startsWith('run_command'))).toEqual([
      'run_command:ls',
      'run_command:echo one',
    ])
    expect(ToolMessage.isInstance(answers.get('one')) && answers.get('one')?.status).not.toBe(
      'error',
    )
    expect(answers.get('two')?.status).toBe('error')
    expect(answers.get('two')?.text).toContain('Not this one.')
  })

  it('should stop the run instead of asking past maxQuestions', async () => {
    const agent = agentWith(1)
    const config = { configurable: { thread_id: randomUUID() } }
    const paused = (await agent.invoke({ messages: [new HumanMessage('Go.')] }, config)) as Paused
    const requests = paused.__interrupt__?.[0]?.value.actionRequests ?? []
    expect(requests.map((request) => request.args)).toEqual([{ command: 'echo one' }])
    const resumed = await agent.invoke(
      new Command({ resume: { decisions: [{ type: 'approve' }] } }),
      config,
    )
    expect(toolMessages(resumed.messages).get('two')?.text).toContain('budget_exhausted')
  })
})
