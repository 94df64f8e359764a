import { randomUUID } from 'node:crypto'
import { type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { Command, interrupt, MemorySaver } from '@langchain/langgraph'
import { createMemoryGuardStore, createSignedGuardStore, type GuardStore } from '@plan/core'
import { createAgent, tool } from 'langchain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createTestWorkspace, scriptedModel, type TestWorkspace } from '../test/index.js'
import { reversingStore } from '../test-utils/reversing-store.js'
import { planGuardMiddleware } from './plan-guard-middleware.js'

let workspace: TestWorkspace

beforeEach(async () => {
  workspace = await createTestWorkspace()
})

afterEach(async () => {
  await workspace.cleanup()
})

/** What one resume did: ran the paused call, or was refused (thrown or answered). */
function outcome(result: PromiseSettledResult<{ messages: BaseMessage[] }>): string {
  if (result.status === 'rejected') {
    return (result.reason as { code?: unknown }).code === 'store_failed' ? 'refused' : 'threw'
  }
  const answer = result.value.messages.filter(ToolMessage.isInstance).at(-1)?.text ?? ''
  if (answer.startsWith('ran ls')) return 'ran'
  return /interrupted_call|step_already_done|step_in_progress/.test(answer) ? 'refused' : answer
}

/** Calls counted against the shared budget `shell` of `acme` (asked with room for none). */
async function sharedUsed(store: GuardStore): Promise<number> {
  const result = await store.reserve([
    { budget: 'shell', key: 'acme', windowStart: 0, maxCalls: 0 },
  ])
  return result.reserved ? Number.NaN : result.used
}

/**
 * A run whose shell tool asks a human before it runs, under a shared budget of one call;
 * `agent()` is one more process serving it (its own middleware) through `store`.
 */
function pausingRun(store: GuardStore) {
  const ran: string[] = []
  const runCommand = tool(
    async ({ command }) => {
      const answer = interrupt({ command })
      ran.push(command)
      return `ran ${command} ${String(answer)}`
    },
    { name: 'run_command', description: 'Run.', schema: z.object({ command: z.string() }) },
  )
  const checkpointer = new MemorySaver()
  const policy = {
    ...workspace.policy(),
    budgets: { shared: { shell: { per: 'tenant', tools: ['run_command'], maxCalls: 1 } } },
  }
  // One script for every process: each model turn is played once, whichever process asks.
  const model = scriptedModel([
    { calls: [{ id: 'c1', tool: 'run_command', args: { command: 'ls' } }] },
    { text: 'Done.' },
    { text: 'Done.' },
    { text: 'Done.' },
  ])
  const agent = () =>
    createAgent({
      model,
      tools: [runCommand],
      checkpointer,
      middleware: [planGuardMiddleware({ policy, store, keys: { tenant: 'acme' } })],
    })
  return { ran, agent, config: { configurable: { thread_id: randomUUID() } } }
}

const stores: Record<string, () => GuardStore> = {
  'a memory store': createMemoryGuardStore,
  'a signed memory store': () =>
    createSignedGuardStore(createMemoryGuardStore(), { keys: ['k'.repeat(32)] }),
}

describe('planGuardMiddleware: a paused call resumes once', () => {
  for (const [name, newStore] of Object.entries(stores)) {
    for (const processes of ['one process', 'two processes']) {
      it(`should run a paused call once when two resumes arrive at once, in ${processes}, with ${name}`, async () => {
        const store = newStore()
        const run = pausingRun(store)
        const first = run.agent()
        const paused = await first.invoke({ messages: [new HumanMessage('List.')] }, run.config)
        expect(paused.__interrupt__).toBeDefined()
        const second = processes === 'one process' ? first : run.agent()
        const resumes = await Promise.allSettled([
          first.invoke(new Command({ resume: 'one' }), run.config),
          second.invoke(new Command({ resume: 'two' }), run.config),
        ])
        expect(run.ran).toEqual(['ls'])
        // The other resume is refused: at once (store_failed), or after the first started (its
        // step is then running or done).
        expect(resumes.map(outcome).sort()).toEqual(['ran', 'refused'])
        expect(await sharedUsed(store)).toBe(1)
      }, 60_000)
    }

    it(`should not run a paused call again when a resume is replayed to the process that paused it, with ${name}`, async () => {
      const store = newStore()
      const run = pausingRun(store)
      const pausing = run.agent()
      await pausing.invoke({ messages: [new HumanMessage('List.')] }, run.config)
      const pausedAt = (await pausing.graph.getState(run.config)).config
      const resumed = await run.agent().invoke(new Command({ resume: 'yes' }), run.config)
      expect(resumed.messages.at(-2)?.content).toBe('ran ls yes')
      const replayed = await pausing.invoke(new Command({ resume: 'again' }), pausedAt)
      expect(run.ran).toEqual(['ls'])
      const answer = replayed.messages.filter(ToolMessage.isInstance).at(-1)
      expect(answer?.content).toContain('step_already_done')
      expect(await sharedUsed(store)).toBe(1)
    }, 60_000)
  }

  for (const processes of ['one process', 'a new process']) {
    it(`should resume every paused call of one turn once, in ${processes}, with a store whose writes land out of order`, async () => {
      const memory = createMemoryGuardStore()
      const store = reversingStore(memory)
      const ran: string[] = []
      const runCommand = tool(
        async ({ command }) => {
          const answer = interrupt({ command })
          ran.push(command)
          return `ran ${command} ${String(answer)}`
        },
        { name: 'run_command', description: 'Run.', schema: z.object({ command: z.string() }) },
      )
      const commands = ['ls', 'git status', 'echo a']
      const model = scriptedModel([
        {
          calls: commands.map((command, index) => ({
            id: `c${index + 1}`,
            tool: 'run_command',
            args: { command },
          })),
        },
        { text: 'Done.' },
      ])
      const checkpointer = new MemorySaver()
      const policy = {
        ...workspace.policy(),
        budgets: { shared: { shell: { per: 'tenant', tools: ['run_command'], maxCalls: 3 } } },
      }
      const agent = () =>
        createAgent({
          model,
          tools: [runCommand],
          checkpointer,
          middleware: [planGuardMiddleware({ policy, store, keys: { tenant: 'acme' } })],
        })
      const config = { configurable: { thread_id: randomUUID() } }
      const first = agent()
      const paused = await first.invoke({ messages: [new HumanMessage('Look.')] }, config)
      const asked = (paused.__interrupt__ ?? []) as { id: string }[]
      expect(asked).toHaveLength(3)
      const resume = Object.fromEntries(asked.map((question) => [question.id, 'yes']))
      const resumer = processes === 'one process' ? first : agent()
      const result = await resumer.invoke(new Command({ resume }), config)
      expect([...ran].sort()).toEqual([...commands].sort())
      const answers = result.messages.filter(ToolMessage.isInstance).map((message) => message.text)
      expect(answers.sort()).toEqual(commands.map((command) => `ran ${command} yes`).sort())
      expect(await sharedUsed(memory)).toBe(3)
    }, 60_000)
  }

  it('should count a resumed call anew with a store that cannot save conditionally', async () => {
    const memory = createMemoryGuardStore()
    const plain: GuardStore = {
      load: (runId) => memory.load(runId),
      save: (runId, saved) => memory.save(runId, saved),
      reserve: (reservations) => memory.reserve(reservations),
    }
    const run = pausingRun(plain)
    const agent = run.agent()
    await agent.invoke({ messages: [new HumanMessage('List.')] }, run.config)
    const resumed = await agent.invoke(new Command({ resume: 'yes' }), run.config)
    expect(run.ran).toEqual([])
    const answer = resumed.messages.filter(ToolMessage.isInstance).at(-1)
    expect(answer?.content).toContain('budget_exhausted')
    expect(await sharedUsed(memory)).toBe(1)
  }, 60_000)
})
