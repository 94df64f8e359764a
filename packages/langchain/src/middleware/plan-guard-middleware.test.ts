import { join } from 'node:path'
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import type { ClientTool } from '@langchain/core/tools'
import { createPlanCompiler, type DecisionEvent, PlanCompilationError, PlanError } from '@plan/core'
import { createAgent, createMiddleware, tool, toolErrorMiddleware } from 'langchain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  type AgentWorkspace,
  createAgentWorkspace,
  expectEveryCallAnswered,
  toolMessages,
} from '../test-utils/workspace.js'
import { planGuardMiddleware } from './plan-guard-middleware.js'

let workspace: AgentWorkspace

beforeEach(async () => {
  workspace = await createAgentWorkspace()
})

afterEach(async () => {
  await workspace.cleanup()
})

/** The messages the model received on its `index`-th call. */
function seenByModel(model: ReturnType<typeof fakeModel>, index: number): BaseMessage[] {
  const call = model.calls[index]
  if (call === undefined) throw new Error(`the model was called ${model.calls.length} times`)
  return call.messages
}

function textOf(message: BaseMessage | undefined): string {
  return message?.text ?? ''
}

async function run(
  model: ReturnType<typeof fakeModel>,
  middleware: ReturnType<typeof planGuardMiddleware>,
) {
  const agent = createAgent({ model, tools: workspace.tools, middleware: [middleware] })
  const result = await agent.invoke({ messages: [new HumanMessage('Do the task.')] })
  expectEveryCallAnswered(result.messages)
  return result.messages
}

/** Reads a streamed run to its end or its error, keeping the last state's messages. */
async function streamToEnd(stream: Promise<AsyncIterable<{ messages: BaseMessage[] }>>) {
  let messages: BaseMessage[] = []
  try {
    for await (const state of await stream) messages = state.messages
    return { error: undefined, messages }
  } catch (error) {
    return { error, messages }
  }
}

describe('planGuardMiddleware', () => {
  describe('per-turn mode', () => {
    it('should run an allowed call and give its output to the model', async () => {
      const model = fakeModel()
        .respondWithTools([{ name: 'view_file', args: { file: 'README.md' }, id: 'read' }])
        .respond(new AIMessage('The README is a demo.'))
      const messages = await run(model, planGuardMiddleware({ policy: workspace.policy() }))
      expect(workspace.ran).toEqual([`view_file:${join(workspace.root, 'README.md')}`])
      const answer = toolMessages(messages).get('read')
      expect(answer?.status).not.toBe('error')
      expect(answer?.content).toBe('# Demo\n')
      expect(textOf(messages.at(-1))).toBe('The README is a demo.')
    })

    it('should not run a call to an unknown tool and tell the model why', async () => {
      const model = fakeModel()
        .respondWithTools([{ name: 'delete_everything', args: {}, id: 'evil' }])
        .respond(new AIMessage('I cannot do that.'))
      await run(model, planGuardMiddleware({ policy: workspace.policy() }))
      expect(workspace.ran).toEqual([])
      const answer = toolMessages(seenByModel(model, 1)).get('evil')
      expect(answer?.status).toBe('error')
      expect(textOf(answer)).toContain('unknown_tool')
      expect(textOf(answer)).toContain('Allowed: the tools view_file, write_file, run_command')
    })

    it('should not run a path that escapes the workspace and tell the model why', async () => {
      const model = fakeModel()
        .respondWithTools([{ name: 'view_file', args: { file: '../../etc/passwd' }, id: 'escape' }])
        .respond(new AIMessage('Blocked.'))
      await run(model, planGuardMiddleware({ policy: workspace.policy() }))
      expect(workspace.ran).toEqual([])
      const answer = toolMessages(seenByModel(model, 1)).get('escape')
      expect(answer?.status).toBe('error')
      expect(textOf(answer)).toContain('path_outside_workspace at file')
    })

    it('should not follow a symlink that leads out of the workspace', async () => {
      const model = fakeModel()
        .respondWithTools([{ name: 'view_file', args: { file: 'escape/secret.txt' }, id: 'link' }])
        .respond(new AIMessage('Blocked.'))
      await run(model, planGuardMiddleware({ policy: workspace.policy() }))
      expect(workspace.ran).toEqual([])
      expect(textOf(toolMessages(seenByModel(model, 1)).get('link'))).toContain(
        'path_outside_workspace',
      )
    })

    it('should not run a piped command and tell the model why', async () => {
      const model = fakeModel()
        .respondWithTools([{ name: 'run_command', args: { command: 'curl x | bash' }, id: 'pipe' }])
        .respond(new AIMessage('Blocked.'))
      await run(model, planGuardMiddleware({ policy: workspace.policy() }))
      expect(workspace.ran).toEqual([])
      const text = textOf(toolMessages(seenByModel(model, 1)).get('pipe'))
      expect(text).toContain('command_pipeline')
      expect(text).toContain('at command')
    })

    it('should run an allowed command', async () => {
      const model = fakeModel()
        .respondWithTools([{ name: 'run_command', args: { command: 'git status' }, id: 'git' }])
        .respond(new AIMessage('Clean.'))
      await run(model, planGuardMiddleware({ policy: workspace.policy() }))
      expect(workspace.ran).toEqual(['run_command:git status'])
    })

    it('should run no call of a turn that has a rejected call, and say why to each', async () => {
      const model = fakeModel()
        .respondWithTools([
          { name: 'view_file', args: { file: 'README.md' }, id: 'good' },
          { name: 'view_file', args: { file: '/etc/shadow' }, id: 'bad' },
        ])
        .respond(new AIMessage('Blocked.'))
      await run(model, planGuardMiddleware({ policy: workspace.policy() }))
      expect(workspace.ran).toEqual([])
      const answers = toolMessages(seenByModel(model, 1))
      expect(textOf(answers.get('bad'))).toContain('path_outside_workspace')
      expect(textOf(answers.get('good'))).toContain('same turn as calls that were rejected')
    })

    it('should let the model correct itself after a denial', async () => {
      const model = fakeModel()
        .respondWithTools([{ name: 'view_file', args: { file: '/etc/passwd' }, id: 'bad' }])
        .respondWithTools([{ name: 'view_file', args: { file: 'docs/guide.md' }, id: 'fixed' }])
        .respond(new AIMessage('Done.'))
      const messages = await run(model, planGuardMiddleware({ policy: workspace.policy() }))
      expect(workspace.ran).toEqual([`view_file:${join(workspace.root, 'docs/guide.md')}`])
      expect(toolMessages(messages).get('fixed')?.content).toBe('Guide\n')
    })

    it('should let parallel calls racing a budget run no more than the budget allows', async () => {
      const slow = await createAgentWorkspace({ delayMs: 30 })
      try {
        const model = fakeModel()
          .respondWithTools([
            { name: 'view_file', args: { file: 'README.md' }, id: 'one' },
            { name: 'view_file', args: { file: 'docs/guide.md' }, id: 'two' },
            { name: 'view_file', args: { file: 'docs/../README.md' }, id: 'three' },
          ])
          .respond(new AIMessage('I read two files; the budget stopped the third.'))
        const agent = createAgent({
          model,
          tools: slow.tools,
          middleware: [planGuardMiddleware({ policy: slow.policy({ budgets: { maxCalls: 2 } }) })],
        })
        const result = await agent.invoke({ messages: [new HumanMessage('Read everything.')] })
        expectEveryCallAnswered(result.messages)
        expect(slow.ran).toHaveLength(2)
        const denied = [...toolMessages(result.messages).values()].filter(
          (message) => message.status === 'error',
        )
        expect(denied).toHaveLength(1)
        expect(textOf(denied[0])).toContain('budget_exhausted')
        expect(model.callCount).toBe(2)
        expect(textOf(seenByModel(model, 1)[0])).toContain('@plan stopped this run')
        expect(textOf(result.messages.at(-1))).toBe(
          'I read two files; the budget stopped the third.',
        )
      } finally {
        await slow.cleanup()
      }
    })

    it('should stop a model that repeats the same rejected call', async () => {
      const model = fakeModel()
      for (let index = 0; index < 6; index += 1) {
        model.respondWithTools([
          { name: 'view_file', args: { file: '/etc/passwd' }, id: `try${index}` },
        ])
      }
      const messages = await run(model, planGuardMiddleware({ policy: workspace.policy() }))
      expect(workspace.ran).toEqual([])
      expect(model.callCount).toBe(5)
      expect(textOf(seenByModel(model, 4)[0])).toContain('@plan stopped this run')
      expect(textOf(toolMessages(messages).get('try3'))).toContain('repeated_call')
      expect(textOf(messages.at(-1))).toContain('@plan ended the run')
    })

    it('should stop a model that repeats the same allowed call', async () => {
      const model = fakeModel()
      for (let index = 0; index < 6; index += 1) {
        model.respondWithTools([
          { name: 'view_file', args: { file: 'README.md' }, id: `again${index}` },
        ])
      }
      const messages = await run(model, planGuardMiddleware({ policy: workspace.policy() }))
      expect(workspace.ran).toHaveLength(3)
      expect(model.callCount).toBe(5)
      expect(textOf(seenByModel(model, 4)[0])).toContain('repeated_call')
      expect(textOf(toolMessages(messages).get('again3'))).toContain('repeated_call')
    })

    it('should hide the tools the policy does not list', async () => {
      const seenTools: string[][] = []
      const spy = createMiddleware({
        name: 'Spy',
        wrapModelCall: (request, handler) => {
          seenTools.push(request.tools.map((entry) => (entry as { name: string }).name))
          return handler(request)
        },
      })
      const extra = tool(async () => 'x', {
        name: 'unlisted',
        description: 'x',
        schema: z.object({}),
      })
      const model = fakeModel().respond(new AIMessage('Nothing to do.'))
      const agent = createAgent({
        model,
        tools: [...workspace.tools, extra] as ClientTool[],
        middleware: [planGuardMiddleware({ policy: workspace.policy() }), spy],
      })
      await agent.invoke({ messages: [new HumanMessage('Hi')] })
      expect(seenTools).toEqual([['view_file', 'write_file', 'run_command']])
    })

    it('should report every decision to onDecision', async () => {
      const decisions: DecisionEvent[] = []
      const model = fakeModel()
        .respondWithTools([{ name: 'view_file', args: { file: 'README.md' }, id: 'read' }])
        .respondWithTools([{ name: 'nope', args: {}, id: 'unknown' }])
        .respond(new AIMessage('Done.'))
      await run(
        model,
        planGuardMiddleware({
          policy: workspace.policy(),
          onDecision: (decision) => decisions.push(decision),
        }),
      )
      expect(decisions.map((decision) => [decision.kind, decision.allowed])).toEqual([
        ['turn', true],
        ['call', true],
        ['turn', false],
        ['call', false],
      ])
    })

    it('should give each invocation its own budgets', async () => {
      const middleware = planGuardMiddleware({
        policy: workspace.policy({ budgets: { maxCalls: 1 } }),
      })
      for (const id of ['first', 'second']) {
        const model = fakeModel()
          .respondWithTools([{ name: 'view_file', args: { file: 'README.md' }, id }])
          .respond(new AIMessage('Done.'))
        await run(model, middleware)
      }
      expect(workspace.ran).toHaveLength(2)
    })

    it('should keep concurrent invocations of one agent apart', async () => {
      const slow = await createAgentWorkspace({ delayMs: 20 })
      try {
        const middleware = planGuardMiddleware({
          policy: slow.policy({ budgets: { maxCalls: 1 } }),
        })
        const invocations = ['README.md', 'docs/guide.md'].map((file, index) => {
          const model = fakeModel()
            .respondWithTools([{ name: 'view_file', args: { file }, id: `call${index}` }])
            .respond(new AIMessage('Done.'))
          const agent = createAgent({ model, tools: slow.tools, middleware: [middleware] })
          return agent.invoke({ messages: [new HumanMessage('Go')] })
        })
        const results = await Promise.all(invocations)
        for (const result of results) expectEveryCallAnswered(result.messages)
        expect(slow.ran).toHaveLength(2)
      } finally {
        await slow.cleanup()
      }
    })

    it('should run calls whose provider ids are not valid step ids', async () => {
      const model = fakeModel()
        .respondWithTools([
          { name: 'view_file', args: { file: 'README.md' }, id: 'functions.view_file:0' },
        ])
        .respond(new AIMessage('Done.'))
      const messages = await run(model, planGuardMiddleware({ policy: workspace.policy() }))
      expect(workspace.ran).toHaveLength(1)
      expect(toolMessages(messages).get('functions.view_file:0')?.content).toBe('# Demo\n')
    })

    it('should keep the tool call id and error status on a denial', async () => {
      const model = fakeModel()
        .respondWithTools([{ name: 'nope', args: {}, id: 'x1' }])
        .respond(new AIMessage('ok'))
      const messages = await run(model, planGuardMiddleware({ policy: workspace.policy() }))
      const answer = toolMessages(messages).get('x1')
      expect(answer).toBeInstanceOf(ToolMessage)
      expect(answer?.status).toBe('error')
      expect(answer?.name).toBe('nope')
    })
    it('should check the calls as a later afterModel hook edited them', async () => {
      // Listed first, so its afterModel runs after the guard's (as a human review would).
      const editor = (file: string) =>
        createMiddleware({
          name: 'Editor',
          afterModel: (state) => {
            const last = state.messages.at(-1)
            if (!AIMessage.isInstance(last) || !last.tool_calls?.length) return undefined
            const edited = last.tool_calls.map((call) => ({ ...call, args: { file } }))
            return {
              messages: [new AIMessage({ id: last.id, content: last.content, tool_calls: edited })],
            }
          },
        })
      for (const [file, runs] of [
        ['/etc/passwd', false],
        ['docs/guide.md', true],
      ] as const) {
        workspace.ran.length = 0
        const model = fakeModel()
          .respondWithTools([{ name: 'view_file', args: { file: 'README.md' }, id: 'edited' }])
          .respond(new AIMessage('Done.'))
        const agent = createAgent({
          model,
          tools: workspace.tools,
          middleware: [editor(file), planGuardMiddleware({ policy: workspace.policy() })],
        })
        const result = await agent.invoke({ messages: [new HumanMessage('Go')] })
        expectEveryCallAnswered(result.messages)
        expect(workspace.ran).toEqual(runs ? [`view_file:${join(workspace.root, file)}`] : [])
      }
    })

    it('should check each turn even when another afterModel jumps past the guard', async () => {
      const jumper = createMiddleware({
        name: 'Jumper',
        afterModel: {
          canJumpTo: ['tools'],
          hook: (state) => {
            const last = state.messages.at(-1)
            return AIMessage.isInstance(last) && last.tool_calls?.length
              ? { jumpTo: 'tools' }
              : undefined
          },
        },
      })
      const model = fakeModel()
        .respondWithTools([{ name: 'view_file', args: { file: 'README.md' }, id: 'first' }])
        .respondWithTools([{ name: 'view_file', args: { file: '/etc/passwd' }, id: 'second' }])
        .respondWithTools([{ name: 'view_file', args: { file: 'docs/guide.md' }, id: 'third' }])
        .respond(new AIMessage('Done.'))
      const agent = createAgent({
        model,
        tools: workspace.tools,
        middleware: [planGuardMiddleware({ policy: workspace.policy() }), jumper],
      })
      const result = await agent.invoke({ messages: [new HumanMessage('Go')] })
      expectEveryCallAnswered(result.messages)
      expect(workspace.ran).toEqual([
        `view_file:${join(workspace.root, 'README.md')}`,
        `view_file:${join(workspace.root, 'docs/guide.md')}`,
      ])
      expect(textOf(toolMessages(result.messages).get('second'))).toContain(
        'path_outside_workspace',
      )
    })

    it('should refuse a call whose tool an outer middleware swapped', async () => {
      const swapper = createMiddleware({
        name: 'Swapper',
        wrapToolCall: (request, handler) => handler({ ...request, tool: workspace.runCommand }),
      })
      const model = fakeModel()
        .respondWithTools([{ name: 'view_file', args: { file: 'README.md' }, id: 'swapped' }])
        .respond(new AIMessage('Done.'))
      const agent = createAgent({
        model,
        tools: workspace.tools,
        middleware: [swapper, planGuardMiddleware({ policy: workspace.policy() })],
      })
      const result = await agent.invoke({ messages: [new HumanMessage('Go')] })
      expectEveryCallAnswered(result.messages)
      expect(workspace.ran).toEqual([])
      expect(textOf(toolMessages(result.messages).get('swapped'))).toContain('would run the tool')
    })

    it('should refuse a call outside a run it started', async () => {
      // The configuration whose runs start in a beforeAgent node.
      const middleware = planGuardMiddleware({ policy: workspace.policy(), exitBehavior: 'error' })
      let reached = false
      const request = {
        toolCall: { id: 'stray', name: 'view_file', args: { file: 'README.md' } },
        tool: workspace.viewFile,
        state: { messages: [] },
        runtime: {},
      } as unknown as Parameters<NonNullable<typeof middleware.wrapToolCall>>[0]
      const attempt = middleware.wrapToolCall?.(request, async () => {
        reached = true
        return new ToolMessage({ content: 'ran', tool_call_id: 'stray' })
      })
      // Answered, not thrown (LangChain would wrap a throw); the next hook node throws it.
      const answer = await attempt
      expect(ToolMessage.isInstance(answer) && answer.status).toBe('error')
      expect(ToolMessage.isInstance(answer) && answer.text).toContain('state_corrupt')
      expect(reached).toBe(false)
      const next = middleware.beforeAgent
      const hook = typeof next === 'function' ? next : next?.hook
      await expect(hook?.({ messages: [] } as never, {} as never)).rejects.toSatisfy(
        (error: unknown) => PlanError.isInstance(error) && error.issues.length > 0,
      )
    })

    it('should start the next run normally after a refused call', async () => {
      // The configuration whose runs start in a beforeAgent node.
      const middleware = planGuardMiddleware({ policy: workspace.policy(), exitBehavior: 'error' })
      const request = {
        toolCall: { id: 'stray', name: 'view_file', args: { file: 'README.md' } },
        tool: workspace.viewFile,
        state: { messages: [new AIMessage({ content: '', id: 'turn' })] },
        runtime: {},
      } as unknown as Parameters<NonNullable<typeof middleware.wrapToolCall>>[0]
      const answer = await middleware.wrapToolCall?.(request, async () => {
        throw new Error('the tool must not run')
      })
      expect(ToolMessage.isInstance(answer) && answer.status).toBe('error')
      // A new invocation: new input, so another state than the refused one.
      const next = middleware.beforeAgent
      const hook = typeof next === 'function' ? next : next?.hook
      const started = await hook?.(
        { messages: [new HumanMessage({ content: 'Again.', id: 'again' })] } as never,
        {} as never,
      )
      expect(started).toMatchObject({ _planGuardRunId: expect.any(String) })
    })

    it('should keep every tool visible with maskTools false', async () => {
      const seenTools: string[][] = []
      const spy = createMiddleware({
        name: 'Spy',
        wrapModelCall: (request, handler) => {
          seenTools.push(request.tools.map((entry) => (entry as { name: string }).name))
          return handler(request)
        },
      })
      const model = fakeModel().respond(new AIMessage('Nothing to do.'))
      const agent = createAgent({
        model,
        tools: workspace.tools,
        middleware: [
          planGuardMiddleware({
            policy: workspace.policy(),
            plan: [{ id: 'read', tool: 'view_file', args: { file: 'README.md' } }],
            maskTools: false,
          }),
          spy,
        ],
      })
      await agent.invoke({ messages: [new HumanMessage('Hi')] })
      expect(seenTools).toEqual([['view_file', 'write_file', 'run_command']])
    })
  })

  describe('plan mode', () => {
    const plan = {
      steps: [
        { id: 'read', tool: 'view_file', args: { file: 'README.md' } },
        {
          id: 'write',
          tool: 'write_file',
          args: { file: 'NOTES.md', content: 'notes' },
          depends_on: ['read'],
        },
      ],
    }

    it('should run the approved steps in order', async () => {
      const model = fakeModel()
        .respondWithTools([{ name: 'view_file', args: { file: 'README.md' }, id: 'a' }])
        .respondWithTools([
          { name: 'write_file', args: { file: 'NOTES.md', content: 'notes' }, id: 'b' },
        ])
        .respond(new AIMessage('Done.'))
      await run(model, planGuardMiddleware({ policy: workspace.policy(), plan }))
      expect(workspace.ran).toEqual([
        `view_file:${join(workspace.root, 'README.md')}`,
        `write_file:${join(workspace.root, 'NOTES.md')}`,
      ])
    })

    it('should not run an off-plan call and tell the model what is ready', async () => {
      const model = fakeModel()
        .respondWithTools([{ name: 'run_command', args: { command: 'git status' }, id: 'off' }])
        .respond(new AIMessage('Sorry.'))
      await run(model, planGuardMiddleware({ policy: workspace.policy(), plan }))
      expect(workspace.ran).toEqual([])
      const text = textOf(toolMessages(seenByModel(model, 1)).get('off'))
      expect(text).toContain('call_not_in_plan')
      expect(text).toContain('step "read": view_file')
    })

    it('should stop a model that repeats the same off-plan call', async () => {
      const model = fakeModel()
      for (let index = 0; index < 6; index += 1) {
        model.respondWithTools([
          { name: 'run_command', args: { command: 'ls' }, id: `off${index}` },
        ])
      }
      const messages = await run(model, planGuardMiddleware({ policy: workspace.policy(), plan }))
      expect(workspace.ran).toEqual([])
      expect(model.callCount).toBe(5)
      expect(textOf(toolMessages(messages).get('off3'))).toContain('repeated_call')
      expect(textOf(messages.at(-1))).toContain('@plan ended the run')
    })

    it('should not run a step before its dependencies', async () => {
      const model = fakeModel()
        .respondWithTools([
          { name: 'write_file', args: { file: 'NOTES.md', content: 'notes' }, id: 'early' },
        ])
        .respond(new AIMessage('Sorry.'))
      await run(model, planGuardMiddleware({ policy: workspace.policy(), plan }))
      expect(workspace.ran).toEqual([])
      expect(textOf(toolMessages(seenByModel(model, 1)).get('early'))).toContain('step_not_ready')
    })

    it('should show the model only the tools of ready steps, and the steps themselves', async () => {
      const seenTools: string[][] = []
      const spy = createMiddleware({
        name: 'Spy',
        wrapModelCall: (request, handler) => {
          seenTools.push(request.tools.map((entry) => (entry as { name: string }).name))
          return handler(request)
        },
      })
      const model = fakeModel()
        .respondWithTools([{ name: 'view_file', args: { file: 'README.md' }, id: 'a' }])
        .respondWithTools([
          { name: 'write_file', args: { file: 'NOTES.md', content: 'notes' }, id: 'b' },
        ])
        .respond(new AIMessage('Done.'))
      const agent = createAgent({
        model,
        tools: workspace.tools,
        middleware: [planGuardMiddleware({ policy: workspace.policy(), plan }), spy],
      })
      await agent.invoke({ messages: [new HumanMessage('Go')] })
      expect(seenTools).toEqual([['view_file'], ['write_file'], []])
      expect(textOf(seenByModel(model, 0)[0])).toContain(
        'step "read": view_file {"file":"README.md"}',
      )
    })

    it('should add the ready steps after the agent system prompt', async () => {
      const model = fakeModel().respond(new AIMessage('Later.'))
      const agent = createAgent({
        model,
        tools: workspace.tools,
        systemPrompt: 'You are careful.',
        middleware: [planGuardMiddleware({ policy: workspace.policy(), plan })],
      })
      await agent.invoke({ messages: [new HumanMessage('Go')] })
      const system = textOf(seenByModel(model, 0)[0])
      expect(system.startsWith('You are careful.\n\nReady steps of the approved plan')).toBe(true)
    })

    it('should pass a step output to a later step through a reference', async () => {
      const referencing = {
        steps: [
          { id: 'read', tool: 'view_file', args: { file: 'README.md' } },
          { id: 'copy', tool: 'write_file', args: { file: 'COPY.md', content: { $ref: 'read' } } },
        ],
      }
      const model = fakeModel()
        .respondWithTools([{ name: 'view_file', args: { file: 'README.md' }, id: 'a' }])
        .respondWithTools([
          { name: 'write_file', args: { file: 'COPY.md', content: '# Demo\n' }, id: 'b' },
        ])
        .respond(new AIMessage('Done.'))
      await run(model, planGuardMiddleware({ policy: workspace.policy(), plan: referencing }))
      expect(workspace.ran).toHaveLength(2)
    })

    it('should read a field of a JSON tool output through a reference', async () => {
      const notes = join(workspace.root, 'NOTES.md')
      const referencing = [
        { id: 'write', tool: 'write_file', args: { file: 'NOTES.md', content: 'notes' } },
        { id: 'check', tool: 'view_file', args: { file: { $ref: 'write.output.written' } } },
      ]
      const model = fakeModel()
        .respondWithTools([
          { name: 'write_file', args: { file: 'NOTES.md', content: 'notes' }, id: 'a' },
        ])
        .respondWithTools([{ name: 'view_file', args: { file: notes }, id: 'b' }])
        .respond(new AIMessage('Done.'))
      const messages = await run(
        model,
        planGuardMiddleware({ policy: workspace.policy(), plan: referencing }),
      )
      expect(workspace.ran).toEqual([`write_file:${notes}`, `view_file:${notes}`])
      expect(toolMessages(messages).get('b')?.content).toBe('notes')
      expect(textOf(seenByModel(model, 1)[0])).toContain(
        `step "check": view_file {"file":"${notes}"}`,
      )
    })

    it('should skip the dependents of a step whose tool failed', async () => {
      const failing = tool(
        async () => {
          workspace.ran.push('view_file:failed')
          throw new Error('disk on fire')
        },
        { name: 'view_file', description: 'Read a file.', schema: z.object({ file: z.string() }) },
      )
      const model = fakeModel()
        .respondWithTools([{ name: 'view_file', args: { file: 'README.md' }, id: 'a' }])
        .respondWithTools([
          { name: 'write_file', args: { file: 'NOTES.md', content: 'notes' }, id: 'b' },
        ])
        .respond(new AIMessage('Gave up.'))
      const agent = createAgent({
        model,
        tools: [failing, workspace.writeFile],
        middleware: [
          planGuardMiddleware({ policy: workspace.policy(), plan }),
          toolErrorMiddleware({ onError: (error) => `Tool failed: ${(error as Error).message}` }),
        ],
      })
      const result = await agent.invoke({ messages: [new HumanMessage('Go')] })
      expectEveryCallAnswered(result.messages)
      expect(workspace.ran).toEqual(['view_file:failed'])
      expect(textOf(toolMessages(result.messages).get('b'))).toContain('step_not_ready')
    })

    it('should refuse a plan the policy rejects before any model call', async () => {
      const model = fakeModel().respond(new AIMessage('unreachable'))
      const agent = createAgent({
        model,
        tools: workspace.tools,
        middleware: [
          planGuardMiddleware({
            policy: workspace.policy(),
            plan: [{ id: 'x', tool: 'view_file', args: { file: '/etc/passwd' } }],
          }),
        ],
      })
      const error = await agent
        .invoke({ messages: [new HumanMessage('Go')] })
        .catch((thrown: unknown) => thrown)
      expect(PlanError.isInstance(error)).toBe(true)
      expect(model.callCount).toBe(0)
    })

    it('should refuse a rejected or forged plan where the agent is built, given a compiler', async () => {
      const compiler = await createPlanCompiler(workspace.policy())
      expect(() =>
        planGuardMiddleware({
          compiler,
          plan: [{ id: 'x', tool: 'view_file', args: { file: '/etc/passwd' } }],
        }),
      ).toThrow(PlanCompilationError)
      const approved = compiler.compile(plan)
      const forged = {
        ...approved,
        steps: approved.steps.map((step) => ({ ...step, args: { file: '/etc/shadow' } })),
      }
      expect(() => planGuardMiddleware({ compiler, plan: forged })).toThrow(PlanError)
    })

    it('should accept a compiled plan and compile it again against the policy', async () => {
      const compiler = await createPlanCompiler(workspace.policy())
      const model = fakeModel()
        .respondWithTools([{ name: 'view_file', args: { file: 'README.md' }, id: 'a' }])
        .respond(new AIMessage('Done.'))
      await run(model, planGuardMiddleware({ compiler, plan: compiler.compile(plan) }))
      expect(workspace.ran).toHaveLength(1)
    })
  })

  describe('graph nodes', () => {
    it('should add only the hook nodes a configuration needs', async () => {
      const nodesOf = (middleware: ReturnType<typeof planGuardMiddleware>) =>
        Object.keys(
          createAgent({ model: fakeModel(), tools: workspace.tools, middleware: [middleware] })
            .graph.nodes,
        ).filter((node) => node.startsWith('PlanGuardMiddleware.'))
      const policy = workspace.policy()
      expect(nodesOf(planGuardMiddleware({ policy }))).toEqual([])
      expect(nodesOf(planGuardMiddleware({ policy, exitBehavior: 'end' }))).toEqual([])
      expect(nodesOf(planGuardMiddleware({ policy, exitBehavior: 'error' })).sort()).toEqual([
        'PlanGuardMiddleware.after_agent',
        'PlanGuardMiddleware.after_model',
        'PlanGuardMiddleware.before_agent',
        'PlanGuardMiddleware.before_model',
      ])
    })
  })

  describe('exitBehavior', () => {
    it('should throw a PlanCompilationError for a rejected turn with "error", every call answered', async () => {
      const model = fakeModel().respondWithTools([
        { name: 'view_file', args: { file: '/etc/passwd' }, id: 'bad' },
      ])
      const agent = createAgent({
        model,
        tools: workspace.tools,
        middleware: [planGuardMiddleware({ policy: workspace.policy(), exitBehavior: 'error' })],
      })
      const { error, messages } = await streamToEnd(
        agent.stream({ messages: [new HumanMessage('Go')] }, { streamMode: 'values' }),
      )
      expect(error).toBeInstanceOf(PlanCompilationError)
      expectEveryCallAnswered(messages)
      expect(toolMessages(messages).has('bad')).toBe(true)
      expect((error as PlanError).issues[0]?.code).toBe('path_outside_workspace')
      expect(workspace.ran).toEqual([])
    })

    it('should throw a PlanError for an off-plan call with "error"', async () => {
      const model = fakeModel().respondWithTools([
        { name: 'run_command', args: { command: 'ls' }, id: 'off' },
      ])
      const agent = createAgent({
        model,
        tools: workspace.tools,
        middleware: [
          planGuardMiddleware({
            policy: workspace.policy(),
            plan: [{ id: 'read', tool: 'view_file', args: { file: 'README.md' } }],
            exitBehavior: 'error',
          }),
        ],
      })
      const { error, messages } = await streamToEnd(
        agent.stream({ messages: [new HumanMessage('Go')] }, { streamMode: 'values' }),
      )
      expect(PlanError.isInstance(error)).toBe(true)
      expect((error as PlanError).issues[0]?.code).toBe('call_not_in_plan')
      expectEveryCallAnswered(messages)
      expect(toolMessages(messages).get('off')?.status).toBe('error')
      expect(workspace.ran).toEqual([])
      expect(model.callCount).toBe(1)
    })

    it('should end the run cleanly with "end", through afterAgent, every call answered', async () => {
      let afterAgentRan = false
      const watcher = createMiddleware({
        name: 'Watcher',
        afterAgent: () => {
          afterAgentRan = true
        },
      })
      const model = fakeModel().respondWithTools([
        { name: 'view_file', args: { file: 'README.md' }, id: 'good' },
        { name: 'run_command', args: { command: 'rm -rf /' }, id: 'bad' },
      ])
      const agent = createAgent({
        model,
        tools: workspace.tools,
        middleware: [
          watcher,
          planGuardMiddleware({ policy: workspace.policy(), exitBehavior: 'end' }),
        ],
      })
      const result = await agent.invoke({ messages: [new HumanMessage('Go')] })
      expectEveryCallAnswered(result.messages)
      expect(workspace.ran).toEqual([])
      expect(afterAgentRan).toBe(true)
      expect(textOf(result.messages.at(-1))).toContain('@plan ended the run')
      expect(model.callCount).toBe(1)
    })

    it('should end the run with "end" when a call is denied at run time', async () => {
      const model = fakeModel().respondWithTools([
        { name: 'view_file', args: { file: 'escape/secret.txt' }, id: 'link' },
      ])
      const messages = await run(
        model,
        planGuardMiddleware({ policy: workspace.policy(), exitBehavior: 'end' }),
      )
      expect(workspace.ran).toEqual([])
      expect(textOf(messages.at(-1))).toContain('@plan ended the run')
      expect(model.callCount).toBe(1)
    })
  })

  describe('options', () => {
    it('should refuse an unknown exitBehavior', () => {
      expect(() =>
        planGuardMiddleware({ policy: workspace.policy(), exitBehavior: 'retry' as 'end' }),
      ).toThrow(PlanError)
    })

    it('should need exactly one of policy or compiler', () => {
      expect(() => planGuardMiddleware({} as never)).toThrow(PlanError)
    })

    it('should refuse an invalid policy when the middleware is built', () => {
      expect(() => planGuardMiddleware({ policy: { version: 2 } as never })).toThrow(PlanError)
    })
  })
})
