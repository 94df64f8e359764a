import { randomUUID } from 'node:crypto'
import { type BaseMessage, HumanMessage } from '@langchain/core/messages'
import { Command, MemorySaver } from '@langchain/langgraph'
import { createMemoryGuardStore, type PolicyInput } from '@plan/core'
import { createAgent, createMiddleware, tool } from 'langchain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { type ScriptedTurn, scriptedModel } from '../test/index.js'
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
type Decision = 'approve' | 'reject'

const shell = (command: string, id: string): ScriptedTurn => ({
  calls: [{ id, tool: 'run_command', args: { command } }],
})

/**
 * A `view_file` that answers only once the call `ask<n>` of its turn (its file `notes-<n>.md`)
 * was refused and put to a human (`pausedAt` saw it pause the run), so the state its answer
 * saves holds that refusal, counted.
 */
function readAfterRefusal() {
  const refused = new Set<string>()
  const waiting = new Map<string, () => void>()
  const onRefused = (callId: string) => {
    refused.add(callId)
    waiting.get(callId)?.()
  }
  // Outside the guard: a call that leaves it by pausing the run was refused and asked about.
  const pausedAt = createMiddleware({
    name: 'PausedAt',
    wrapToolCall: async (request, handler) => {
      try {
        return await handler(request)
      } catch (error) {
        if (request.toolCall.id !== undefined) onRefused(request.toolCall.id)
        throw error
      }
    },
  })
  const viewFile = tool(
    async ({ file }) => {
      const index = /notes-(\d+)\.md$/.exec(file)?.[1]
      const callId = `ask${index}`
      if (index !== undefined && !refused.has(callId))
        await new Promise<void>((done) => waiting.set(callId, done))
      return `read ${file}`
    },
    { name: 'view_file', description: 'Read.', schema: z.object({ file: z.string() }) },
  )
  return { viewFile, pausedAt }
}

/** How the budget is set to exactly `asks` refusals, the commands asked about, and one more. */
interface Scenario {
  readonly budgets: (asks: number) => PolicyInput['budgets']
  readonly command: (index: number) => string
  readonly extra: string
  readonly code: string
  /** Refusals the guard counted: the asked ones, and the extra one when the guard refused it. */
  readonly denials: (asks: number, parallel: boolean) => number
}

const scenarios: Record<string, Scenario> = {
  maxDenials: {
    budgets: (asks) => ({ maxDenials: asks }),
    command: (index) => `echo ${index}`,
    // Not in `commands.allow`: refused without asking, one denial past the budget.
    extra: 'rm notes.md',
    code: 'budget_exhausted',
    denials: (asks) => asks + 1,
  },
  maxIdenticalCalls: {
    budgets: (asks) => ({ maxIdenticalCalls: asks }),
    command: () => 'ls',
    extra: 'ls',
    code: 'repeated_call',
    // The same turn once too often stops the run before its call reaches the guard.
    denials: (asks, parallel) => (parallel ? asks + 1 : asks),
  },
}

/** Runs the agent, answering every question with `decision`; `agentFor(n)` serves invocation n. */
async function runAsking(
  agentFor: (invocation: number) => ReturnType<typeof createAgent>,
  decision: Decision,
) {
  const config = { configurable: { thread_id: randomUUID() } }
  let invocation = 0
  let result = (await agentFor(invocation).invoke(
    { messages: [new HumanMessage('Read, then run.')] },
    config,
  )) as Result
  const resume = {
    decisions: [decision === 'approve' ? { type: 'approve' } : { type: 'reject', message: 'No.' }],
  }
  while (result.__interrupt__ !== undefined) {
    invocation += 1
    result = (await agentFor(invocation).invoke(new Command({ resume }), config)) as Result
  }
  const saved = (await agentFor(invocation).graph.getState(config)).values as {
    _planGuardState: PlanGuardRunState
  }
  return { result, invocations: invocation + 1, saved: saved._planGuardState }
}

describe('planGuardMiddleware', () => {
  describe("a refusal put to a human (onRefuse: 'ask')", () => {
    for (const [name, scenario] of Object.entries(scenarios)) {
      for (const asks of [1, 3]) {
        for (const decision of ['approve', 'reject'] as const) {
          for (const parallel of [false, true])
            for (const processes of [
              'one process',
              'a new process for each resume',
              'a new process for each resume, without a store',
            ] as const) {
              const withStore = !processes.endsWith('without a store')
              // Without a store, a new process restores a paused turn from a checkpoint that
              // does not hold its other calls (see the README): those need a store.
              if (parallel && !withStore) continue
              it(`should count ${asks} refusal(s) asked and answered ${decision} once each against ${name}, in ${processes}${parallel ? ', beside a read that saves the state' : ''}`, async () => {
                const store = createMemoryGuardStore()
                const checkpointer = new MemorySaver()
                const { viewFile, pausedAt } = readAfterRefusal()
                const asked = Array.from({ length: asks }, (_, index) => ({
                  calls: [
                    {
                      id: `ask${index}`,
                      tool: 'run_command',
                      args: { command: scenario.command(index) },
                    },
                    ...(parallel
                      ? [
                          {
                            id: `read${index}`,
                            tool: 'view_file',
                            args: { file: `notes-${index}.md` },
                          },
                        ]
                      : []),
                  ],
                }))
                const model = scriptedModel([
                  { calls: [{ id: 'read', tool: 'view_file', args: { file: 'README.md' } }] },
                  ...asked,
                  shell(scenario.extra, 'extra'),
                  { text: 'Done.' },
                ])
                const policy = workspace.policy({
                  trust: { tainted: { onRefuse: 'ask' } },
                  budgets: scenario.budgets(asks),
                })
                const agentOf = () =>
                  createAgent({
                    model,
                    tools: [
                      viewFile,
                      ...workspace.tools.filter((entry) => entry.name !== 'view_file'),
                    ],
                    checkpointer,
                    middleware: [
                      pausedAt,
                      planGuardMiddleware({
                        policy,
                        ...(withStore ? { store } : {}),
                      }),
                    ],
                  })
                const shared = agentOf()
                const { result, invocations, saved } = await runAsking(
                  () => (processes === 'one process' ? shared : agentOf()),
                  decision,
                )
                expect(invocations).toBe(asks + 1)
                expectEveryCallAnswered(result.messages)
                const answers = toolMessages(result.messages)
                const ran = Array.from({ length: asks }, (_, index) =>
                  decision === 'approve' ? `run_command:${scenario.command(index)}` : undefined,
                ).filter((entry) => entry !== undefined)
                expect(workspace.ran.filter((entry) => entry.startsWith('run_command'))).toEqual(
                  ran,
                )
                for (let index = 0; index < asks; index += 1) {
                  const answer = answers.get(`ask${index}`)
                  if (decision === 'approve') expect(answer?.status).not.toBe('error')
                  else expect(answer?.text).toContain('A human refused this call: No.')
                }
                // One refusal past the budget still stops the run.
                expect(answers.get('extra')?.text).toContain(scenario.code)
                expect(saved.guard.denials).toBe(scenario.denials(asks, parallel))
                expect(saved.guard.calls).toBe(
                  1 + (parallel ? asks : 0) + (decision === 'approve' ? asks : 0),
                )
              })
            }
        }
      }
    }
  })
})
