import { randomUUID } from 'node:crypto'
import { type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { Command, interrupt, MemorySaver } from '@langchain/langgraph'
import { createSignedGuardStore, type GuardStore } from '@plan/core'
import { planGuardMiddleware } from '@plan/langchain'
import { createTestWorkspace, scriptedModel, type TestWorkspace } from '@plan/langchain/test'
import { createAgent, tool } from 'langchain'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createPostgresGuardStore, type PostgresGuardStore } from './create-postgres-guard-store.js'
import { postgresTestUrl, uniquePrefix } from './test-utils/postgres-url.js'

const url = postgresTestUrl()

/** What one resume did: ran the paused call, or was refused (thrown or answered). */
function outcome(result: PromiseSettledResult<{ messages: BaseMessage[] }>): string {
  if (result.status === 'rejected') {
    return (result.reason as { code?: unknown }).code === 'store_failed' ? 'refused' : 'threw'
  }
  const answer = result.value.messages.filter(ToolMessage.isInstance).at(-1)?.text ?? ''
  if (answer.startsWith('ran ls')) return 'ran'
  return /interrupted_call|step_already_done|step_in_progress/.test(answer) ? 'refused' : answer
}

describe.skipIf(url === undefined)('a paused LangChain call resumed through PostgreSQL', () => {
  let workspace: TestWorkspace
  const stores: PostgresGuardStore[] = []

  beforeEach(async () => {
    workspace = await createTestWorkspace()
  })

  afterEach(async () => {
    await workspace.cleanup()
  })

  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()))
  })

  /** One process's store: a pool of its own on the shared tables, signed or not. */
  function storeOf(prefix: string, signed: boolean): GuardStore {
    const store = createPostgresGuardStore({ connectionString: url as string, tablePrefix: prefix })
    stores.push(store)
    return signed ? createSignedGuardStore(store, { keys: ['k'.repeat(32)] }) : store
  }

  /**
   * A run whose shell tool asks a human before it runs, under a shared budget of one call;
   * `agent()` is one more process serving it, with a store of its own.
   */
  function pausingRun(signed: boolean) {
    const prefix = uniquePrefix()
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
        middleware: [
          planGuardMiddleware({ policy, store: storeOf(prefix, signed), keys: { tenant: 'acme' } }),
        ],
      })
    const used = async () => {
      const result = await storeOf(prefix, false).reserve([
        { budget: 'shell', key: 'acme', windowStart: 0, maxCalls: 0 },
      ])
      return result.reserved ? Number.NaN : result.used
    }
    return { ran, agent, used, config: { configurable: { thread_id: randomUUID() } } }
  }

  it('should resume every paused call of one turn once in a new process, its saves on a pool', {
    timeout: 60_000,
  }, async () => {
    const prefix = uniquePrefix()
    const ran: string[] = []
    const runCommand = tool(
      async ({ command }) => {
        const answer = interrupt({ command })
        ran.push(command)
        return `ran ${command} ${String(answer)}`
      },
      { name: 'run_command', description: 'Run.', schema: z.object({ command: z.string() }) },
    )
    const commands = ['ls', 'git status', 'echo a', 'echo b', 'git log']
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
      budgets: { shared: { shell: { per: 'tenant', tools: ['run_command'], maxCalls: 5 } } },
    }
    const agent = () =>
      createAgent({
        model,
        tools: [runCommand],
        checkpointer,
        middleware: [
          planGuardMiddleware({ policy, store: storeOf(prefix, false), keys: { tenant: 'acme' } }),
        ],
      })
    const config = { configurable: { thread_id: randomUUID() } }
    const paused = await agent().invoke({ messages: [new HumanMessage('Look.')] }, config)
    const asked = (paused.__interrupt__ ?? []) as { id: string }[]
    expect(asked).toHaveLength(commands.length)
    const resume = Object.fromEntries(asked.map((question) => [question.id, 'yes']))
    const result = await agent().invoke(new Command({ resume }), config)
    expect([...ran].sort()).toEqual([...commands].sort())
    const answers = result.messages.filter(ToolMessage.isInstance).map((message) => message.text)
    expect(answers.sort()).toEqual(commands.map((command) => `ran ${command} yes`).sort())
  })

  for (const signed of [false, true]) {
    const name = signed ? 'a signed store' : 'a store'
    it(`should run a paused call once when two processes resume it at once, with ${name}`, {
      timeout: 60_000,
    }, async () => {
      const run = pausingRun(signed)
      await run.agent().invoke({ messages: [new HumanMessage('List.')] }, run.config)
      const [one, two] = [run.agent(), run.agent()]
      const resumes = await Promise.allSettled([
        one.invoke(new Command({ resume: 'one' }), run.config),
        two.invoke(new Command({ resume: 'two' }), run.config),
      ])
      expect(run.ran).toEqual(['ls'])
      // The other resume is refused: at once (store_failed), or after the first started (its
      // step is then running or done).
      expect(resumes.map(outcome).sort()).toEqual(['ran', 'refused'])
      expect(await run.used()).toBe(1)
    })

    it(`should not run a paused call again when a resume is replayed to the process that paused it, with ${name}`, {
      timeout: 60_000,
    }, async () => {
      const run = pausingRun(signed)
      const pausing = run.agent()
      await pausing.invoke({ messages: [new HumanMessage('List.')] }, run.config)
      const pausedAt = (await pausing.graph.getState(run.config)).config
      const resumed = await run.agent().invoke(new Command({ resume: 'yes' }), run.config)
      expect(resumed.messages.at(-2)?.content).toBe('ran ls yes')
      const replayed = await pausing.invoke(new Command({ resume: 'again' }), pausedAt)
      expect(run.ran).toEqual(['ls'])
      const answer = replayed.messages.filter(ToolMessage.isInstance).at(-1)
      expect(answer?.content).toContain('step_already_done')
      expect(await run.used()).toBe(1)
    })
  }
})
