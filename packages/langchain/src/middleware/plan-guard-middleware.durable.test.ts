import { randomUUID } from 'node:crypto'
import { AIMessage, HumanMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { Command, interrupt, MemorySaver } from '@langchain/langgraph'
import {
  createMemoryGuardStore,
  createSignedGuardStore,
  type GuardStore,
  PlanError,
  type PlanGuardState,
  type SavedRunState,
} from '@plan/core'
import { createAgent, tool } from 'langchain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { type AgentWorkspace, createAgentWorkspace, toolMessages } from '../test-utils/workspace.js'
import { planGuardMiddleware } from './plan-guard-middleware.js'
import type { PlanGuardRunState } from './run-state.js'

let workspace: AgentWorkspace

beforeEach(async () => {
  workspace = await createAgentWorkspace()
})

afterEach(async () => {
  await workspace.cleanup()
})

const callLs = { name: 'run_command', args: { command: 'ls' }, id: 'c1' }

function scripted() {
  return fakeModel().respondWithTools([callLs]).respond(new AIMessage('Done.'))
}

describe('planGuardMiddleware', () => {
  describe('with a guard store', () => {
    it('should save the run state with the call counted before the tool starts', async () => {
      const memory = createMemoryGuardStore()
      const saves: PlanGuardRunState[] = []
      const store: GuardStore = {
        ...memory,
        save: (runId, saved) => {
          saves.push(saved.state as PlanGuardRunState)
          return memory.save(runId, saved)
        },
      }
      const seenAtStart: PlanGuardState[] = []
      const runCommand = tool(
        async ({ command }) => {
          // What the store holds as the tool starts (saved whole, or as the call's changes).
          const last = saves.at(-1)
          const stored = last === undefined ? undefined : await memory.load(last.runId)
          if (stored !== undefined) seenAtStart.push((stored.state as PlanGuardRunState).guard)
          return `ran ${command}`
        },
        { name: 'run_command', description: 'Run.', schema: z.object({ command: z.string() }) },
      )
      const agent = createAgent({
        model: scripted(),
        tools: [runCommand],
        middleware: [planGuardMiddleware({ policy: workspace.policy(), store })],
      })
      await agent.invoke({ messages: [new HumanMessage('List.')] })
      expect(seenAtStart).toHaveLength(1)
      expect(seenAtStart[0]?.calls).toBe(1)
      expect(Object.values(seenAtStart[0]?.status ?? {})).toEqual(['running'])
      const runId = saves[0]?.runId ?? ''
      const final = (await memory.load(runId))?.state as PlanGuardRunState
      expect(Object.values(final.guard.status)).toEqual(['done'])
      expect(final.revision).toBeGreaterThan(saves[0]?.revision ?? Number.POSITIVE_INFINITY)
    })

    it('should run a call again when a run that its tool paused is resumed', async () => {
      const store = createMemoryGuardStore()
      const checkpointer = new MemorySaver()
      const config = { configurable: { thread_id: randomUUID() } }
      const asking = tool(
        async ({ command }) => `ran ${command}: ${String(interrupt({ command }))}`,
        { name: 'run_command', description: 'Run.', schema: z.object({ command: z.string() }) },
      )
      // Each invocation has its own middleware, as another process would.
      const agentWith = (model: ReturnType<typeof fakeModel>) =>
        createAgent({
          model,
          tools: [asking],
          checkpointer,
          middleware: [planGuardMiddleware({ policy: workspace.policy(), store })],
        })
      await agentWith(fakeModel().respondWithTools([callLs])).invoke(
        { messages: [new HumanMessage('List.')] },
        config,
      )
      const result = await agentWith(fakeModel().respond(new AIMessage('Done.'))).invoke(
        new Command({ resume: 'approved' }),
        config,
      )
      const answer = toolMessages(result.messages).get('c1')
      expect(answer?.status).not.toBe('error')
      expect(answer?.text).toBe('ran ls: approved')
    })

    it('should resume a run from a signed store, and refuse to resume it once its row was edited', async () => {
      // The store's table, which anyone with write access to the database can edit.
      const rows = new Map<string, SavedRunState>()
      const table: GuardStore = {
        ...createMemoryGuardStore(),
        load: async (runId) => structuredClone(rows.get(runId)),
        save: async (runId, saved) => {
          rows.set(runId, structuredClone(saved))
        },
      }
      const store = createSignedGuardStore(table, { keys: ['k'.repeat(32)] })
      const checkpointer = new MemorySaver()
      const starts: string[] = []
      const asking = tool(
        async ({ command }) => {
          starts.push(command)
          return `ran ${command}: ${String(interrupt({ command }))}`
        },
        { name: 'run_command', description: 'Run.', schema: z.object({ command: z.string() }) },
      )
      const agentWith = (model: ReturnType<typeof fakeModel>) =>
        createAgent({
          model,
          tools: [asking],
          checkpointer,
          middleware: [planGuardMiddleware({ policy: workspace.policy(), store })],
        })
      const pauseAndResume = async (tamper: (row: SavedRunState) => void) => {
        const config = { configurable: { thread_id: randomUUID() } }
        await agentWith(fakeModel().respondWithTools([callLs])).invoke(
          { messages: [new HumanMessage('List.')] },
          config,
        )
        const [runId, row] = [...rows].at(-1) ?? []
        if (runId === undefined || row === undefined) throw new Error('nothing was saved')
        tamper(row)
        return agentWith(fakeModel().respond(new AIMessage('Done.')))
          .invoke(new Command({ resume: 'approved' }), config)
          .then((result) => toolMessages(result.messages).get('c1')?.text)
          .catch((error: unknown) => (PlanError.isInstance(error) ? error.code : String(error)))
      }
      expect(await pauseAndResume(() => undefined)).toBe('ran ls: approved')
      const resetCount = (row: SavedRunState) => {
        ;(row.state as { state: { guard: { calls: number } } }).state.guard.calls = 0
      }
      expect(await pauseAndResume(resetCount)).toBe('signature_invalid')
      expect(starts).toEqual(['ls', 'ls', 'ls'])
    })

    it('should deny calls past a shared budget across runs, and every such call without a store', async () => {
      const store = createMemoryGuardStore()
      const policy = workspace.policy({
        budgets: { shared: { shell: { per: 'tenant', tools: ['run_command'], maxCalls: 1 } } },
      })
      const outcomes: string[] = []
      for (const withStore of [true, true, false]) {
        const agent = createAgent({
          model: scripted(),
          tools: workspace.tools,
          middleware: [
            planGuardMiddleware({
              policy,
              ...(withStore ? { store } : {}),
              keys: { tenant: 'acme' },
            }),
          ],
        })
        const result = await agent.invoke(
          { messages: [new HumanMessage('List.')] },
          { configurable: { thread_id: randomUUID() } },
        )
        const answer = toolMessages(result.messages).get('c1')
        outcomes.push(
          answer?.status === 'error'
            ? (/\b(budget_exhausted|store_failed)\b/.exec(answer.text)?.[1] ?? 'error')
            : 'ran',
        )
      }
      expect(outcomes).toEqual(['ran', 'budget_exhausted', 'store_failed'])
      expect(workspace.ran).toEqual(['run_command:ls'])
    })
  })
})
