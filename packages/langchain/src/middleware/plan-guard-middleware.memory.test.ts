import { randomUUID } from 'node:crypto'
import { queryObjects } from 'node:v8'
import { AIMessage, HumanMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { Command, interrupt, MemorySaver, StateGraph, StateSchema } from '@langchain/langgraph'
import { PlanError } from '@plan/core'
import {
  type AgentMiddleware,
  createAgent,
  createMiddleware,
  humanInTheLoopMiddleware,
  tool,
} from 'langchain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { type AgentWorkspace, createAgentWorkspace, toolMessages } from '../test-utils/workspace.js'
import { invocationOf } from './invocation.js'
import { planGuardMiddleware } from './plan-guard-middleware.js'
import type { RunRegistry } from './run-registry.js'
import { runRegistryOf } from './run-registry-of.js'
import type { PlanGuardRunState } from './run-state.js'

let workspace: AgentWorkspace

beforeEach(async () => {
  workspace = await createAgentWorkspace()
})

afterEach(async () => {
  await workspace.cleanup()
})

const RUNS = 5

function registryOf(middleware: AgentMiddleware): RunRegistry {
  const registry = runRegistryOf(middleware)
  if (registry === undefined) throw new Error('no run registry')
  return registry
}

/**
 * Listed before the guard: marks every run the guard holds for the invocation, after each
 * model and tool call. A mark lives as long as its run (a `WeakMap` value), and
 * `queryObjects` counts the marks left after a full garbage collection.
 */
function runWatcher(registry: RunRegistry) {
  class RunMark {}
  const marks = new WeakMap<object, RunMark>()
  const seen = new Set<string>()
  const note = (runtime: unknown) => {
    for (const run of registry.heldBy(invocationOf(runtime))) {
      if (!marks.has(run)) marks.set(run, new RunMark())
      seen.add(run.id)
    }
  }
  const middleware = createMiddleware({
    name: 'RunWatcher',
    wrapModelCall: async (request, handler) => {
      try {
        return await handler(request)
      } finally {
        note(request.runtime)
      }
    },
    wrapToolCall: async (request, handler) => {
      try {
        return await handler(request)
      } finally {
        note(request.runtime)
      }
    },
  })
  return {
    middleware,
    seen: () => seen.size,
    /**
     * How many of the marked runs are still in memory after a full garbage collection, once
     * the current task is over (the weak references it made keep their targets until then).
     */
    alive: async () => {
      await new Promise((resolve) => setImmediate(resolve))
      return queryObjects(RunMark, { format: 'count' })
    },
  }
}

const readme = { name: 'view_file', args: { file: 'README.md' }, id: 'read' }

/** Ends the agent after every model turn, as a guardrail middleware might. */
const endAfterModel = createMiddleware({
  name: 'EndAfterModel',
  afterModel: { canJumpTo: ['end'], hook: () => ({ jumpTo: 'end' as const }) },
})

describe('planGuardMiddleware', () => {
  describe('runs in memory', () => {
    it('should hold no run after runs that end with an answer', async () => {
      const guard = planGuardMiddleware({ policy: workspace.policy() })
      const registry = registryOf(guard)
      const watcher = runWatcher(registry)
      for (let index = 0; index < RUNS; index += 1) {
        await createAgent({
          model: fakeModel().respondWithTools([readme]).respond(new AIMessage('Done.')),
          tools: workspace.tools,
          middleware: [watcher.middleware, guard],
        }).invoke({ messages: [new HumanMessage('Read.')] })
      }
      expect(watcher.seen()).toBe(RUNS)
      expect(await watcher.alive()).toBe(0)
      expect(registry.unheldCount()).toBe(0)
    })

    it('should hold no run after runs that a returnDirect tool ends', async () => {
      const answer = tool(async () => 'The answer.', {
        name: 'answer',
        description: 'Answer the user.',
        schema: z.object({}),
        returnDirect: true,
      })
      const guard = planGuardMiddleware({
        policy: { ...workspace.policy(), tools: { answer: { args: {} } } },
      })
      const registry = registryOf(guard)
      const watcher = runWatcher(registry)
      for (let index = 0; index < RUNS; index += 1) {
        const result = await createAgent({
          model: fakeModel().respondWithTools([{ name: 'answer', args: {}, id: 'answer' }]),
          tools: [answer],
          middleware: [watcher.middleware, guard],
        }).invoke({ messages: [new HumanMessage('Answer.')] })
        expect(result.messages.at(-1)?.text).toBe('The answer.')
      }
      expect(watcher.seen()).toBe(RUNS)
      expect(await watcher.alive()).toBe(0)
      expect(registry.unheldCount()).toBe(0)
    })

    it("should hold no run after runs that another middleware's jump to the end ends", async () => {
      const guard = planGuardMiddleware({ policy: workspace.policy() })
      const registry = registryOf(guard)
      const watcher = runWatcher(registry)
      for (let index = 0; index < RUNS; index += 1) {
        await createAgent({
          model: fakeModel().respondWithTools([readme]),
          tools: workspace.tools,
          middleware: [endAfterModel, watcher.middleware, guard],
        }).invoke({ messages: [new HumanMessage('Read.')] })
      }
      expect(watcher.seen()).toBe(RUNS)
      expect(await watcher.alive()).toBe(0)
      expect(registry.unheldCount()).toBe(0)
    })

    it.each(['continue', 'error'] as const)(
      'should hold no run after runs that an error ends (%s)',
      async (exitBehavior) => {
        const guard = planGuardMiddleware({ policy: workspace.policy(), exitBehavior })
        const registry = registryOf(guard)
        const watcher = runWatcher(registry)
        const failures: string[] = []
        for (let index = 0; index < RUNS; index += 1) {
          // The second model call is past the script: the model throws.
          await createAgent({
            model: fakeModel().respondWithTools([readme]),
            tools: workspace.tools,
            middleware: [watcher.middleware, guard],
          })
            .invoke({ messages: [new HumanMessage('Read.')] })
            .catch((error: unknown) => {
              failures.push(PlanError.isInstance(error) ? 'PlanError' : 'Error')
            })
        }
        expect(failures).toEqual(Array(RUNS).fill('Error'))
        expect(watcher.seen()).toBe(RUNS)
        expect(await watcher.alive()).toBe(0)
        expect(registry.unheldCount()).toBe(0)
      },
    )

    it('should hold no run after runs paused for a review and never resumed, and restore one that is', async () => {
      const checkpointer = new MemorySaver()
      const guard = planGuardMiddleware({
        policy: workspace.policy({ budgets: { maxCalls: 1 } }),
      })
      const registry = registryOf(guard)
      const watcher = runWatcher(registry)
      const agentWith = (model: ReturnType<typeof fakeModel>) =>
        createAgent({
          model,
          tools: workspace.tools,
          checkpointer,
          middleware: [
            humanInTheLoopMiddleware({ interruptOn: { run_command: true } }),
            watcher.middleware,
            guard,
          ],
        })
      const list = { name: 'run_command', args: { command: 'ls' }, id: 'list' }
      const threads = Array.from({ length: RUNS }, () => ({
        configurable: { thread_id: randomUUID() },
      }))
      for (const config of threads) {
        await agentWith(fakeModel().respondWithTools([readme]).respondWithTools([list])).invoke(
          { messages: [new HumanMessage('Read, then list.')] },
          config,
        )
      }
      expect(watcher.seen()).toBe(RUNS)
      expect(await watcher.alive()).toBe(0)
      expect(registry.unheldCount()).toBe(0)
      const resumed = await agentWith(fakeModel().respond(new AIMessage('Done.'))).invoke(
        new Command({ resume: { decisions: [{ type: 'approve' }] } }),
        threads[0],
      )
      // The restored run still counts the call made before the pause.
      expect(toolMessages(resumed.messages).get('list')?.text).toContain('budget_exhausted')
      expect(workspace.ran.filter((entry) => entry.startsWith('run_command'))).toEqual([])
    })

    it('should keep at most maxLiveRuns runs paused inside their tools, and resume one from memory', async () => {
      const checkpointer = new MemorySaver()
      const confirm = tool(async () => `confirmed: ${String(interrupt('Go on?'))}`, {
        name: 'confirm',
        description: 'Ask the user.',
        schema: z.object({}),
      })
      const guard = planGuardMiddleware({
        policy: { ...workspace.policy(), tools: { ...workspace.policy().tools, confirm: {} } },
        maxLiveRuns: 2,
      })
      const registry = registryOf(guard)
      const watcher = runWatcher(registry)
      const agentWith = (model: ReturnType<typeof fakeModel>) =>
        createAgent({
          model,
          tools: [workspace.viewFile, confirm],
          checkpointer,
          middleware: [watcher.middleware, guard],
        })
      const threads = Array.from({ length: RUNS }, () => ({
        configurable: { thread_id: randomUUID() },
      }))
      // One turn: a read that finishes and a confirmation that pauses the run.
      const turn = [readme, { name: 'confirm', args: {}, id: 'ask' }]
      for (const config of threads) {
        await agentWith(fakeModel().respondWithTools(turn)).invoke(
          { messages: [new HumanMessage('Read and ask.')] },
          config,
        )
      }
      expect(watcher.seen()).toBe(RUNS)
      expect(await watcher.alive()).toBe(2)
      expect(registry.unheldCount()).toBe(2)
      const last = threads.at(-1)
      const resumed = await agentWith(fakeModel().respond(new AIMessage('Done.'))).invoke(
        new Command({ resume: 'yes' }),
        last,
      )
      expect(toolMessages(resumed.messages).get('ask')?.text).toBe('confirmed: yes')
      expect(registry.unheldCount()).toBe(1)
      const saved = (await agentWith(fakeModel()).graph.getState(last ?? {})).values as {
        _planGuardState: PlanGuardRunState
      }
      // The run went on in memory: it knows the read that finished before the pause.
      expect(saved._planGuardState.guard.status).toMatchObject({ read: 'done', ask: 'done' })
    })

    it('should keep at most maxLiveRuns runs in one invocation that runs the agent again and again', async () => {
      const guard = planGuardMiddleware({ policy: workspace.policy(), maxLiveRuns: 2 })
      const registry = registryOf(guard)
      const watcher = runWatcher(registry)
      const held: number[] = []
      const counter = createMiddleware({
        name: 'HeldRuns',
        wrapModelCall: async (request, handler) => {
          const response = await handler(request)
          held.push(registry.heldBy(invocationOf(request.runtime)).length)
          return response
        },
      })
      // An outer graph whose one node runs the agent five times: every run shares its invocation.
      const outer = new StateGraph(new StateSchema({ runs: z.number() }))
        .addNode('work', async () => {
          for (let index = 0; index < RUNS; index += 1) {
            await createAgent({
              model: fakeModel().respondWithTools([{ ...readme, id: `read${index}` }]),
              tools: workspace.tools,
              middleware: [endAfterModel, watcher.middleware, counter, guard],
            }).invoke({ messages: [new HumanMessage('Read.')] })
          }
          return { runs: RUNS }
        })
        .addEdge('__start__', 'work')
        .compile()
      await outer.invoke({ runs: 0 })
      expect(held).toEqual([1, 2, 2, 2, 2])
      expect(watcher.seen()).toBe(RUNS)
      expect(await watcher.alive()).toBe(0)
    })

    it('should refuse a maxLiveRuns that is not a whole number of at least 1', () => {
      for (const maxLiveRuns of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        expect(() => planGuardMiddleware({ policy: workspace.policy(), maxLiveRuns })).toThrow(
          expect.objectContaining({ code: 'invalid_configuration' }),
        )
      }
    })
  })
})
