import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages'
import { MemorySaver } from '@langchain/langgraph'
import { PlanError } from '@plan/core'
import { createAgent, createMiddleware } from 'langchain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { scriptedModel } from '../test/index.js'
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

function textOf(message: BaseMessage | undefined): string {
  return message?.text ?? ''
}

const read = (file: string, id: string) => ({ id, tool: 'view_file', args: { file } })

/** Sends an ended agent loop (an answer without tool calls) back to the model, once. */
function sendBackOnce() {
  let sent = false
  return createMiddleware({
    name: 'SendBack',
    afterModel: {
      canJumpTo: ['model'],
      hook: (state) => {
        const last = state.messages.at(-1)
        if (sent || !AIMessage.isInstance(last) || (last.tool_calls ?? []).length > 0) {
          return undefined
        }
        sent = true
        return { messages: [new HumanMessage('Go on.')], jumpTo: 'model' as const }
      },
    },
  })
}

describe('planGuardMiddleware', () => {
  describe('runs without a beforeAgent node', () => {
    it('should give a new invocation on the same thread its own budgets', async () => {
      const checkpointer = new MemorySaver()
      const config = { configurable: { thread_id: randomUUID() } }
      const middleware = planGuardMiddleware({
        policy: workspace.policy({ budgets: { maxCalls: 1 } }),
      })
      for (const [file, id] of [
        ['README.md', 'first'],
        ['docs/guide.md', 'second'],
      ] as const) {
        const model = scriptedModel([{ calls: [read(file, id)] }, { text: 'Done.' }])
        const agent = createAgent({
          model,
          tools: workspace.tools,
          checkpointer,
          middleware: [middleware],
        })
        const result = await agent.invoke({ messages: [new HumanMessage('Read.')] }, config)
        expectEveryCallAnswered(result.messages)
      }
      expect(workspace.ran).toEqual([
        `view_file:${join(workspace.root, 'README.md')}`,
        `view_file:${join(workspace.root, 'docs/guide.md')}`,
      ])
    })

    it('should keep the budgets of a run that another middleware sends back to the model', async () => {
      const model = scriptedModel([
        { calls: [read('README.md', 'first')] },
        { text: 'Done.' },
        { calls: [read('docs/guide.md', 'second')] },
        { text: 'Done.' },
      ])
      const agent = createAgent({
        model,
        tools: workspace.tools,
        middleware: [
          sendBackOnce(),
          planGuardMiddleware({ policy: workspace.policy({ budgets: { maxCalls: 1 } }) }),
        ],
      })
      const result = await agent.invoke({ messages: [new HumanMessage('Read.')] })
      expectEveryCallAnswered(result.messages)
      expect(workspace.ran).toEqual([`view_file:${join(workspace.root, 'README.md')}`])
      expect(textOf(toolMessages(result.messages).get('second'))).toContain('budget_exhausted')
    })

    it('should go on with a run whose agent loop had not ended when a new input comes', async () => {
      const checkpointer = new MemorySaver()
      const config = { configurable: { thread_id: randomUUID() } }
      const policy = workspace.policy({ budgets: { maxCalls: 1 } })
      const paused = createAgent({
        model: scriptedModel([{ calls: [read('README.md', 'first')] }]),
        tools: workspace.tools,
        checkpointer,
        middleware: [planGuardMiddleware({ policy })],
      })
      // Paused after its tools, as a crash or a deploy would leave it; never resumed.
      const pausedAfterTools = { ...config, interruptAfter: ['tools'] }
      await paused.invoke({ messages: [new HumanMessage('Read.')] }, pausedAfterTools)
      const model = scriptedModel([{ calls: [read('docs/guide.md', 'second')] }, { text: 'Done.' }])
      const result = await createAgent({
        model,
        tools: workspace.tools,
        checkpointer,
        middleware: [planGuardMiddleware({ policy })],
      }).invoke({ messages: [new HumanMessage('Read another.')] }, config)
      expectEveryCallAnswered(result.messages)
      expect(workspace.ran).toEqual([`view_file:${join(workspace.root, 'README.md')}`])
      expect(textOf(toolMessages(result.messages).get('second'))).toContain('budget_exhausted')
    })

    it.each(['continue', 'error'] as const)(
      'should end every resume of a run whose saved state was refused with a PlanError (%s)',
      async (exitBehavior) => {
        const checkpointer = new MemorySaver()
        const config = { configurable: { thread_id: randomUUID() } }
        const policy = workspace.policy()
        const agentWith = (model: ReturnType<typeof scriptedModel>) =>
          createAgent({
            model,
            tools: workspace.tools,
            checkpointer,
            middleware: [planGuardMiddleware({ policy, exitBehavior })],
          })
        const first = agentWith(scriptedModel([{ calls: [read('README.md', 'first')] }]))
        const pausedAfterTools = { ...config, interruptAfter: ['tools'] }
        await first.invoke({ messages: [new HumanMessage('Read.')] }, pausedAfterTools)
        const saved = (await first.graph.getState(config)).values as {
          _planGuardState: PlanGuardRunState
        }
        const broken = { ...saved._planGuardState, revision: saved._planGuardState.revision + 1 }
        await first.graph.updateState(config, { _planGuardState: { ...broken, turn: -1 } }, 'tools')
        for (let attempt = 0; attempt < 3; attempt += 1) {
          const model = scriptedModel([{ calls: [read('docs/guide.md', `again${attempt}`)] }])
          const error = await agentWith(model)
            .invoke(null, config)
            .catch((thrown: unknown) => thrown)
          expect(PlanError.isInstance(error)).toBe(true)
          expect(model.callCount).toBe(0)
        }
        expect(workspace.ran).toEqual([`view_file:${join(workspace.root, 'README.md')}`])
      },
    )

    it('should refuse a call outside a run it started and end the invocation with the PlanError', async () => {
      // Sends the agent to its tools before any model call, with a call no model made.
      const stray = createMiddleware({
        name: 'Stray',
        beforeAgent: {
          canJumpTo: ['tools'],
          hook: () => ({
            messages: [
              new AIMessage({
                content: '',
                tool_calls: [{ id: 'stray', name: 'view_file', args: { file: 'README.md' } }],
              }),
            ],
            jumpTo: 'tools' as const,
          }),
        },
      })
      const model = scriptedModel([{ text: 'unreachable' }])
      const error = await createAgent({
        model,
        tools: workspace.tools,
        middleware: [stray, planGuardMiddleware({ policy: workspace.policy() })],
      })
        .invoke({ messages: [new HumanMessage('Go')] })
        .catch((thrown: unknown) => thrown)
      expect(PlanError.isInstance(error)).toBe(true)
      expect(PlanError.isInstance(error) && error.issues[0]?.code).toBe('state_corrupt')
      expect(workspace.ran).toEqual([])
      expect(model.callCount).toBe(0)
    })
  })
})
