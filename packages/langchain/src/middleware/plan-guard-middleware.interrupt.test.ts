import { randomUUID } from 'node:crypto'
import { HumanMessage } from '@langchain/core/messages'
import { Command, interrupt, MemorySaver } from '@langchain/langgraph'
import { createMemoryGuardStore, type GuardStore, type PolicyInput } from '@plan/core'
import { createAgent, createMiddleware, tool } from 'langchain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { type ScriptedTurn, scriptedModel } from '../test/index.js'
import {
  createTestWorkspace,
  expectEveryCallAnswered,
  type TestWorkspace,
  toolMessages,
} from '../test-utils/workspace.js'
import { planGuardMiddleware } from './plan-guard-middleware.js'
import type { PlanGuardRunState } from './run-state.js'

let workspace: TestWorkspace

beforeEach(async () => {
  workspace = await createTestWorkspace()
})

afterEach(async () => {
  await workspace.cleanup()
})

type Result = {
  messages: import('@langchain/core/messages').BaseMessage[]
  __interrupt__?: unknown
}

const shell = (command: string, id: string) => ({
  calls: [{ id, tool: 'run_command', args: { command } }],
})

/** A shell tool that asks a human `asks` times (LangGraph `interrupt()`) before it runs `ls`. */
function askingShell(asks: number) {
  const starts: string[] = []
  const runCommand = tool(
    async ({ command }) => {
      starts.push(command)
      const answers: unknown[] = []
      for (let index = 0; command === 'ls' && index < asks; index += 1)
        answers.push(interrupt({ command, index }))
      workspace.ran.push(`run_command:${command}`)
      return `ran ${command}${answers.map((answer) => ` ${String(answer)}`).join('')}`
    },
    { name: 'run_command', description: 'Run.', schema: z.object({ command: z.string() }) },
  )
  return { runCommand, starts }
}

/** Calls counted against the shared budget `shell` of `acme` (asked with room for none). */
async function sharedUsed(store: GuardStore): Promise<number> {
  const result = await store.reserve([
    { budget: 'shell', key: 'acme', windowStart: 0, maxCalls: 0 },
  ])
  return result.reserved ? Number.NaN : result.used
}

/** How a run is limited, the script after its first call, and the call the limit refuses. */
interface Scenario {
  readonly policy: (policy: PolicyInput) => PolicyInput
  readonly script: readonly ScriptedTurn[]
  readonly ran: readonly string[]
  readonly refused: { readonly id: string; readonly code: string }
  /** Calls the run's guard counted, when not the calls that ran. */
  readonly counted?: number
}

/** Two calls after the paused first one fit; a fourth does not. */
const threeCalls = (policy: Scenario['policy']): Scenario => ({
  policy,
  script: [shell('echo a', 'c2'), shell('git status', 'c3'), shell('echo b', 'c4')],
  ran: ['run_command:ls', 'run_command:echo a', 'run_command:git status'],
  refused: { id: 'c4', code: 'budget_exhausted' },
})

const scenarios: Record<string, Scenario> = {
  'maxCalls of the run': threeCalls((policy) => ({ ...policy, budgets: { maxCalls: 3 } })),
  'maxCalls of the tool': threeCalls((policy) => ({
    ...policy,
    tools: {
      ...policy.tools,
      run_command: { args: { command: { type: 'command' } }, maxCalls: 3 },
    },
  })),
  'a shared budget': {
    ...threeCalls((policy) => ({
      ...policy,
      budgets: { shared: { shell: { per: 'tenant', tools: ['run_command'], maxCalls: 3 } } },
    })),
    // The run's guard counted the fourth call before the store refused it, as any refused call.
    counted: 4,
  },
  // The second `ls` pauses too; the third is one identical call too many.
  maxIdenticalCalls: {
    policy: (policy) => ({ ...policy, budgets: { maxIdenticalCalls: 2 } }),
    script: [shell('ls', 'c2'), shell('ls', 'c3')],
    ran: ['run_command:ls', 'run_command:ls'],
    refused: { id: 'c3', code: 'repeated_call' },
  },
}

/** Runs the agent, resuming it each time it pauses; `agentFor(n)` serves invocation n. */
async function runResuming(agentFor: (invocation: number) => ReturnType<typeof createAgent>) {
  const config = { configurable: { thread_id: randomUUID() } }
  let invocation = 0
  let result = (await agentFor(invocation).invoke(
    { messages: [new HumanMessage('List, then more.')] },
    config,
  )) as Result
  while (result.__interrupt__ !== undefined) {
    invocation += 1
    result = (await agentFor(invocation).invoke(new Command({ resume: 'yes' }), config)) as Result
  }
  const saved = (await agentFor(invocation).graph.getState(config)).values as {
    _planGuardState: PlanGuardRunState
  }
  return { result, invocations: invocation + 1, saved: saved._planGuardState }
}

describe('planGuardMiddleware', () => {
  describe('a tool that interrupts itself', () => {
    for (const [name, scenario] of Object.entries(scenarios)) {
      for (const asks of [1, 3]) {
        for (const processes of [
          'one process',
          'a new process for each resume',
          'a new process for each resume, without a store',
        ] as const) {
          const withStore = !processes.endsWith('without a store')
          // A shared budget needs a store.
          if (!withStore && name === 'a shared budget') continue
          it(`should count a call paused ${asks} time(s) once against ${name}, in ${processes}`, async () => {
            const store = createMemoryGuardStore()
            const { runCommand, starts } = askingShell(asks)
            const checkpointer = new MemorySaver()
            const model = scriptedModel([shell('ls', 'c1'), ...scenario.script, { text: 'Done.' }])
            // A new process has a new middleware (and agent) over the same savers.
            const agentOf = () =>
              createAgent({
                model,
                tools: [runCommand],
                checkpointer,
                middleware: [
                  planGuardMiddleware({
                    policy: scenario.policy(workspace.policy()),
                    ...(withStore ? { store } : {}),
                    keys: { tenant: 'acme' },
                  }),
                ],
              })
            const shared = agentOf()
            const { result, invocations, saved } = await runResuming(() =>
              processes === 'one process' ? shared : agentOf(),
            )
            const paused = scenario.ran.filter((entry) => entry === 'run_command:ls').length
            expect(invocations).toBe(asks * paused + 1)
            expect(starts.filter((command) => command === 'ls')).toHaveLength((asks + 1) * paused)
            expectEveryCallAnswered(result.messages)
            expect(workspace.ran).toEqual(scenario.ran)
            expect(toolMessages(result.messages).get('c1')?.text).toBe(
              `ran ls${' yes'.repeat(asks)}`,
            )
            const answer = toolMessages(result.messages).get(scenario.refused.id)
            expect(answer?.text).toContain(scenario.refused.code)
            expect(saved.guard.calls).toBe(scenario.counted ?? scenario.ran.length)
            if (name === 'a shared budget') expect(await sharedUsed(store)).toBe(3)
          })
        }
      }
    }

    for (const processes of ['one process', 'a new process for each resume'] as const) {
      it(`should count a paused call and a parallel call of its turn once each, in ${processes}`, async () => {
        const store = createMemoryGuardStore()
        const { runCommand } = askingShell(2)
        const checkpointer = new MemorySaver()
        const model = scriptedModel([
          { calls: [...shell('ls', 'c1').calls, ...shell('echo a', 'c2').calls] },
          shell('git status', 'c3'),
          shell('echo b', 'c4'),
          { text: 'Done.' },
        ])
        const policy = {
          ...workspace.policy(),
          budgets: {
            maxCalls: 3,
            shared: { shell: { per: 'tenant', tools: ['run_command'], maxCalls: 3 } },
          },
        }
        const agentOf = () =>
          createAgent({
            model,
            tools: [runCommand],
            checkpointer,
            middleware: [planGuardMiddleware({ policy, store, keys: { tenant: 'acme' } })],
          })
        const shared = agentOf()
        const { result, saved } = await runResuming(() =>
          processes === 'one process' ? shared : agentOf(),
        )
        expectEveryCallAnswered(result.messages)
        expect([...workspace.ran].sort()).toEqual([
          'run_command:echo a',
          'run_command:git status',
          'run_command:ls',
        ])
        expect(toolMessages(result.messages).get('c4')?.text).toContain('budget_exhausted')
        expect(saved.guard.calls).toBe(3)
        // The run's own budget refused the fourth call before the store was asked.
        expect(await sharedUsed(store)).toBe(3)
      })
    }

    it('should count a paused call that is never resumed once', async () => {
      const { runCommand, starts } = askingShell(1)
      const config = { configurable: { thread_id: randomUUID() } }
      const agent = createAgent({
        model: scriptedModel([
          shell('ls', 'c1'),
          ...threeCalls((policy) => policy).script,
          { text: 'Done.' },
        ]),
        tools: [runCommand],
        checkpointer: new MemorySaver(),
        middleware: [
          planGuardMiddleware({ policy: { ...workspace.policy(), budgets: { maxCalls: 3 } } }),
        ],
      })
      const paused = (await agent.invoke(
        { messages: [new HumanMessage('List.')] },
        config,
      )) as Result
      expect(paused.__interrupt__).toBeDefined()
      // New input instead of a resume: the run goes on, with the paused call counted.
      const result = (await agent.invoke(
        { messages: [new HumanMessage('Never mind; go on.')] },
        config,
      )) as Result
      expect(starts).toEqual(['ls', 'echo a', 'git status'])
      expect(workspace.ran).toEqual(['run_command:echo a', 'run_command:git status'])
      expect(toolMessages(result.messages).get('c4')?.text).toContain('budget_exhausted')
    })

    it('should refuse a resumed call whose arguments were changed, and count it once', async () => {
      const { runCommand } = askingShell(1)
      let seen = 0
      // An outer middleware that changes the first call when the run resumes it.
      const changing = createMiddleware({
        name: 'ChangeOnResume',
        wrapToolCall: (request, handler) => {
          const call = request.toolCall
          if (call.id !== 'c1') return handler(request)
          seen += 1
          return handler(
            seen === 1
              ? request
              : { ...request, toolCall: { ...call, args: { command: 'echo x' } } },
          )
        },
      })
      const agent = createAgent({
        model: scriptedModel([
          shell('ls', 'c1'),
          shell('echo a', 'c2'),
          shell('echo b', 'c3'),
          { text: 'Done.' },
        ]),
        tools: [runCommand],
        checkpointer: new MemorySaver(),
        middleware: [
          changing,
          planGuardMiddleware({ policy: { ...workspace.policy(), budgets: { maxCalls: 2 } } }),
        ],
      })
      const { result } = await runResuming(() => agent)
      expectEveryCallAnswered(result.messages)
      const answer = toolMessages(result.messages).get('c1')
      expect(answer?.status).toBe('error')
      expect(answer?.text).toContain('arguments_differ')
      expect(workspace.ran).toEqual(['run_command:echo a'])
      expect(toolMessages(result.messages).get('c3')?.text).toContain('budget_exhausted')
    })
  })
})
