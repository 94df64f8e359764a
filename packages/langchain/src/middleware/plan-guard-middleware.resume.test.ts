import { randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { type BaseMessage, HumanMessage } from '@langchain/core/messages'
import type { fakeModel } from '@langchain/core/testing'
import type { ClientTool } from '@langchain/core/tools'
import { Command, MemorySaver } from '@langchain/langgraph'
import { PlanError } from '@plan/core'
import { createAgent, humanInTheLoopMiddleware, tool } from 'langchain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
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

type Call = { name: string; args: Record<string, unknown>; id: string }

/** A model that makes each batch of calls in turn, then answers `Done.`. */
function scripted(...turns: Call[][]) {
  return scriptedModel([
    ...turns.map((calls) => ({
      calls: calls.map((call) => ({ id: call.id, tool: call.name, args: call.args })),
    })),
    { text: 'Done.' },
  ])
}

const read = (file: string, id: string): Call => ({ name: 'view_file', args: { file }, id })

/** The run's config, pausing it after its next tool calls (as a crash or a deploy would). */
function pausedAfterTools(config: { configurable: { thread_id: string } }) {
  const paused = { ...config, interruptAfter: ['tools'] }
  return paused
}

/**
 * One "process": a new middleware instance and a new agent over the shared checkpointer, as a
 * server restarted between the interruption and the resume would have.
 */
function processOf(
  checkpointer: MemorySaver,
  model: ReturnType<typeof fakeModel>,
  middleware: ReturnType<typeof planGuardMiddleware>,
  tools: ClientTool[] = workspace.tools,
) {
  return createAgent({ model, tools, checkpointer, middleware: [middleware] })
}

describe('planGuardMiddleware', () => {
  describe('resuming a run', () => {
    it('should count maxCalls across an interruption resumed by a new middleware instance', async () => {
      const checkpointer = new MemorySaver()
      const config = { configurable: { thread_id: randomUUID() } }
      const policy = workspace.policy({ budgets: { maxCalls: 2 } })
      const first = processOf(
        checkpointer,
        scripted([read('README.md', 'one')]),
        planGuardMiddleware({ policy }),
      )
      await first.invoke(
        { messages: [new HumanMessage('Read three files.')] },
        pausedAfterTools(config),
      )
      expect(workspace.ran).toHaveLength(1)

      const model = scripted([read('docs/guide.md', 'two')], [read('docs/../README.md', 'three')])
      const second = processOf(checkpointer, model, planGuardMiddleware({ policy }))
      const result = await second.invoke(null, config)
      expectEveryCallAnswered(result.messages)
      expect(workspace.ran).toEqual([
        `view_file:${join(workspace.root, 'README.md')}`,
        `view_file:${join(workspace.root, 'docs/guide.md')}`,
      ])
      expect(textOf(toolMessages(result.messages).get('three'))).toContain('budget_exhausted')
      expect(textOf(result.messages.at(-1))).not.toBe('')
    })

    it('should still stop an identical-call loop spread over several resumes', async () => {
      const checkpointer = new MemorySaver()
      const config = { configurable: { thread_id: randomUUID() } }
      const policy = workspace.policy()
      let result: { messages: BaseMessage[] } | undefined
      for (let index = 0; index < 4; index += 1) {
        const agent = processOf(
          checkpointer,
          scripted([read('README.md', `again${index}`)]),
          planGuardMiddleware({ policy }),
        )
        const input = index === 0 ? { messages: [new HumanMessage('Read it.')] } : null
        result = await agent.invoke(input, pausedAfterTools(config))
      }
      expect(workspace.ran).toHaveLength(3)
      expect(textOf(toolMessages(result?.messages ?? []).get('again3'))).toContain('repeated_call')
    })

    it('should resume a run paused for human review in a new process, with its budgets', async () => {
      const checkpointer = new MemorySaver()
      const config = { configurable: { thread_id: randomUUID() } }
      const policy = workspace.policy({ budgets: { maxCalls: 1 } })
      const reviewed = (model: ReturnType<typeof fakeModel>) =>
        createAgent({
          model,
          tools: workspace.tools,
          checkpointer,
          middleware: [
            humanInTheLoopMiddleware({ interruptOn: { write_file: true } }),
            planGuardMiddleware({ policy }),
          ],
        })
      const paused = await reviewed(
        scripted(
          [read('README.md', 'look')],
          [{ name: 'write_file', args: { file: 'NOTES.md', content: 'notes' }, id: 'save' }],
        ),
      ).invoke({ messages: [new HumanMessage('Take notes.')] }, config)
      expect(workspace.ran).toHaveLength(1)
      expect(paused.__interrupt__).toMatchObject([
        { value: { actionRequests: [{ name: 'write_file', args: { file: 'NOTES.md' } }] } },
      ])

      const resumed = await reviewed(scripted()).invoke(
        new Command({ resume: { decisions: [{ type: 'approve' }] } }),
        config,
      )
      expectEveryCallAnswered(resumed.messages)
      expect(workspace.ran).toEqual([`view_file:${join(workspace.root, 'README.md')}`])
      expect(textOf(toolMessages(resumed.messages).get('save'))).toContain('budget_exhausted')
    })

    it('should keep the step statuses of a resumed plan-mode run', async () => {
      const plan = [
        { id: 'read', tool: 'view_file', args: { file: 'README.md' } },
        {
          id: 'write',
          tool: 'write_file',
          args: { file: 'NOTES.md', content: 'notes' },
          depends_on: ['read'],
        },
      ]
      const checkpointer = new MemorySaver()
      const config = { configurable: { thread_id: randomUUID() } }
      const policy = workspace.policy()
      await processOf(
        checkpointer,
        scripted([read('README.md', 'a')]),
        planGuardMiddleware({ policy, plan }),
      ).invoke({ messages: [new HumanMessage('Go')] }, pausedAfterTools(config))

      const model = scripted(
        [read('README.md', 'again')],
        [{ name: 'write_file', args: { file: 'NOTES.md', content: 'notes' }, id: 'b' }],
      )
      const result = await processOf(
        checkpointer,
        model,
        planGuardMiddleware({ policy, plan }),
      ).invoke(null, config)
      expectEveryCallAnswered(result.messages)
      expect(workspace.ran).toEqual([
        `view_file:${join(workspace.root, 'README.md')}`,
        `write_file:${join(workspace.root, 'NOTES.md')}`,
      ])
      expect(textOf(toolMessages(result.messages).get('again'))).toContain('step_already_done')
      const system = textOf(model.calls[0]?.messages[0])
      expect(system).toContain('step "write": write_file')
      expect(system).not.toContain('step "read": view_file')
    })

    it('should keep the freshest state when parallel calls of one turn write it', async () => {
      // The first call finishes last: its write, the freshest, is not the last one applied.
      const viewSlowly = tool(
        async ({ file }) => {
          workspace.ran.push(`view_file:${file}`)
          await new Promise((resolve) => setTimeout(resolve, file.endsWith('README.md') ? 60 : 5))
          return readFile(file, 'utf8')
        },
        { name: 'view_file', description: 'Read a file.', schema: z.object({ file: z.string() }) },
      )
      const checkpointer = new MemorySaver()
      const config = { configurable: { thread_id: randomUUID() } }
      const policy = workspace.policy({ budgets: { maxCalls: 3 } })
      const first = processOf(
        checkpointer,
        scripted([
          read('README.md', 'one'),
          read('docs/guide.md', 'two'),
          read('docs/../docs/guide.md', 'three'),
        ]),
        planGuardMiddleware({ policy }),
        [viewSlowly],
      )
      await first.invoke(
        { messages: [new HumanMessage('Read everything.')] },
        pausedAfterTools(config),
      )
      expect(workspace.ran).toHaveLength(3)
      const values = (await first.graph.getState(config)).values as {
        _planGuardState: PlanGuardRunState
      }
      const saved = values._planGuardState
      expect(saved.guard.calls).toBe(3)
      expect(Object.values(saved.guard.status)).toEqual(['done', 'done', 'done'])

      const result = await processOf(
        checkpointer,
        scripted([read('README.md', 'four')]),
        planGuardMiddleware({ policy }),
        [viewSlowly],
      ).invoke(null, config)
      expect(workspace.ran).toHaveLength(3)
      expect(textOf(toolMessages(result.messages).get('four'))).toContain('budget_exhausted')
    })

    it('should prefer the state another process wrote later to its own older memory', async () => {
      const checkpointer = new MemorySaver()
      const config = { configurable: { thread_id: randomUUID() } }
      const policy = workspace.policy({ budgets: { maxCalls: 2 } })
      const original = planGuardMiddleware({ policy })
      await processOf(checkpointer, scripted([read('README.md', 'one')]), original).invoke(
        { messages: [new HumanMessage('Read.')] },
        pausedAfterTools(config),
      )
      await processOf(
        checkpointer,
        scripted([read('docs/guide.md', 'two')]),
        planGuardMiddleware({ policy }),
      ).invoke(null, pausedAfterTools(config))
      // Back on the first process, whose memory of the run is older than the state.
      const result = await processOf(
        checkpointer,
        scripted([read('docs/../README.md', 'three')]),
        original,
      ).invoke(null, config)
      expect(workspace.ran).toHaveLength(2)
      expect(textOf(toolMessages(result.messages).get('three'))).toContain('budget_exhausted')
    })

    it('should fail closed when the saved plan was edited', async () => {
      const plan = [
        { id: 'read', tool: 'view_file', args: { file: 'README.md' } },
        {
          id: 'write',
          tool: 'write_file',
          args: { file: 'NOTES.md', content: 'notes' },
          depends_on: ['read'],
        },
      ]
      const policy = workspace.policy()
      // Edits the policy refuses, and edits it allows that keep the plan's hash.
      const edits: ((args: Record<string, unknown>) => Record<string, unknown>)[] = [
        (args) => ({ ...args, file: '/etc/passwd' }),
        (args) => ({ ...args, file: 'EVIL.md', content: 'evil' }),
      ]
      for (const edit of edits) {
        workspace.ran.length = 0
        const checkpointer = new MemorySaver()
        const config = { configurable: { thread_id: randomUUID() } }
        const first = processOf(
          checkpointer,
          scripted([read('README.md', 'a')]),
          planGuardMiddleware({ policy, plan }),
        )
        await first.invoke({ messages: [new HumanMessage('Go')] }, pausedAfterTools(config))
        const values = (await first.graph.getState(config)).values as {
          _planGuardState: PlanGuardRunState
        }
        const tampered = structuredClone(values._planGuardState) as unknown as {
          revision: number
          guard: { plan: { steps: { id: string; args: Record<string, unknown> }[] } }
        }
        tampered.revision += 1
        for (const step of tampered.guard.plan.steps) {
          if (step.id === 'write') step.args = edit(step.args)
        }
        // As the tools node, the last one to run, so the run resumes where it stopped.
        await first.graph.updateState(config, { _planGuardState: tampered }, 'tools')

        const model = scripted([
          { name: 'write_file', args: edit({ file: 'NOTES.md', content: 'notes' }), id: 'b' },
        ])
        const error = await processOf(checkpointer, model, planGuardMiddleware({ policy, plan }))
          .invoke(null, config)
          .catch((thrown: unknown) => thrown)
        expect(PlanError.isInstance(error)).toBe(true)
        expect(workspace.ran).toEqual([`view_file:${join(workspace.root, 'README.md')}`])
        expect(model.callCount).toBe(0)
      }
    })

    it('should fail closed when the saved state belongs to another run', async () => {
      const checkpointer = new MemorySaver()
      const config = { configurable: { thread_id: randomUUID() } }
      const policy = workspace.policy()
      const first = processOf(
        checkpointer,
        scripted([read('README.md', 'a')]),
        planGuardMiddleware({ policy }),
      )
      await first.invoke({ messages: [new HumanMessage('Go')] }, pausedAfterTools(config))
      await first.graph.updateState(config, { _planGuardRunId: randomUUID() }, 'tools')
      const model = scripted([read('docs/guide.md', 'b')])
      const error = await processOf(checkpointer, model, planGuardMiddleware({ policy }))
        .invoke(null, config)
        .catch((thrown: unknown) => thrown)
      expect(PlanError.isInstance(error)).toBe(true)
      expect(workspace.ran).toHaveLength(1)
      expect(model.callCount).toBe(0)
    })
  })
})
