import { randomUUID } from 'node:crypto'
import { type BaseMessage, HumanMessage } from '@langchain/core/messages'
import { Command, interrupt, MemorySaver } from '@langchain/langgraph'
import { createMemoryGuardStore } from '@plan/core'
import { createAgent, tool } from 'langchain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { scriptedModel } from '../test/index.js'
import { crashingWith } from '../test-utils/crashing-with.js'
import {
  type AgentWorkspace,
  createAgentWorkspace,
  expectEveryCallAnswered,
  toolMessages,
} from '../test-utils/workspace.js'
import { planGuardMiddleware } from './plan-guard-middleware.js'
import type { PlanGuardRunState } from './run-state.js'

let workspace: AgentWorkspace

beforeEach(async () => {
  workspace = await createAgentWorkspace()
})

afterEach(async () => {
  await workspace.cleanup()
})

type Result = { messages: BaseMessage[]; __interrupt__?: unknown }

describe('planGuardMiddleware', () => {
  describe('retryInterrupted that asks a human with interrupt()', () => {
    for (const processes of ['one process', 'a new process for the resume'] as const) {
      it(`should count the interrupted_call it asked about once, in ${processes}`, async () => {
        const checkpointer = new MemorySaver()
        const store = createMemoryGuardStore()
        const thread = { configurable: { thread_id: randomUUID() } }
        const policy = workspace.policy({ budgets: { maxDenials: 1 } })
        const crash = crashingWith(checkpointer, store)
        const crashing = tool(
          async () => {
            crash.now()
            return 'lost'
          },
          { name: 'view_file', description: 'Read.', schema: z.object({ file: z.string() }) },
        )
        const read = { id: 'one', tool: 'view_file', args: { file: 'README.md' } }
        await createAgent({
          model: scriptedModel([{ calls: [read] }, { text: 'Done.' }]),
          tools: [crashing],
          checkpointer: crash.checkpointer,
          middleware: [planGuardMiddleware({ policy, store: crash.store })],
        }).invoke({ messages: [new HumanMessage('Read.')] }, thread)
        const model = scriptedModel([{ text: 'Done.' }])
        const agentOf = () =>
          createAgent({
            model,
            tools: workspace.tools,
            checkpointer,
            middleware: [
              planGuardMiddleware({
                policy,
                store,
                retryInterrupted: (call) => interrupt({ interrupted: call }) === true,
              }),
            ],
          })
        const restarted = agentOf()
        const paused = (await restarted.invoke(null, thread)) as Result
        expect(paused.__interrupt__).toMatchObject([
          {
            value: {
              interrupted: {
                stepId: 'one',
                tool: 'view_file',
                issue: { code: 'interrupted_call' },
              },
            },
          },
        ])
        const resumer = processes === 'one process' ? restarted : agentOf()
        const result = (await resumer.invoke(new Command({ resume: true }), thread)) as Result
        expectEveryCallAnswered(result.messages)
        expect(toolMessages(result.messages).get('one')?.status).not.toBe('error')
        expect(workspace.ran.filter((entry) => entry.startsWith('view_file'))).toHaveLength(1)
        const saved = (await resumer.graph.getState(thread)).values as {
          _planGuardState: PlanGuardRunState
        }
        expect(saved._planGuardState.guard).toMatchObject({ denials: 1, calls: 2 })
      })
    }
  })
})
