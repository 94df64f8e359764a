import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { type BaseMessage, HumanMessage } from '@langchain/core/messages'
import type { ClientTool } from '@langchain/core/tools'
import { MemorySaver } from '@langchain/langgraph'
import {
  createMemoryGuardStore,
  createSignedGuardStore,
  type GuardStore,
  PlanError,
} from '@plan/core'
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

type StoreKind = 'memory' | 'signed'
type Thread = { configurable: { thread_id: string } }
type Values = Record<string, unknown>

const STORE_KINDS: readonly StoreKind[] = ['memory', 'signed']

function storeOf(kind: StoreKind): GuardStore {
  const memory = createMemoryGuardStore()
  return kind === 'signed' ? createSignedGuardStore(memory, { keys: ['k'.repeat(32)] }) : memory
}

const read = (file: string, id: string) => ({ id, tool: 'view_file', args: { file } })

/** A model that reads each file in its own turn, then answers `Done.`. */
function reading(...calls: ReturnType<typeof read>[]) {
  return scriptedModel([...calls.map((call) => ({ calls: [call] })), { text: 'Done.' }])
}

/** The run's config, pausing it before or after its next tool calls (as a crash or a deploy would). */
function pausing(thread: Thread, at: 'interruptBefore' | 'interruptAfter') {
  const paused = { ...thread, [at]: ['tools'] }
  return paused
}

/** A model that reads README.md under the call id `id`, then answers `Done.`. */
function modelReading(id: string) {
  return reading(read('README.md', id))
}

/**
 * One "process": a new middleware instance and a new agent over the shared checkpointer and
 * store, as a server restarted between a pause and its resume would have.
 */
function processOf(
  checkpointer: MemorySaver,
  store: GuardStore,
  model: ReturnType<typeof scriptedModel>,
  options: { tools?: ClientTool[]; exitBehavior?: 'continue' | 'error' } = {},
) {
  const policy = workspace.policy({ budgets: { maxCalls: 2 } })
  const { tools = workspace.tools, exitBehavior = 'continue' } = options
  return createAgent({
    model,
    tools,
    checkpointer,
    middleware: [planGuardMiddleware({ policy, store, exitBehavior })],
  })
}

/** The code of the `PlanError` the invocation ended with, or its tool answers' texts by call id. */
async function outcome(invocation: Promise<{ messages: BaseMessage[] }>) {
  try {
    const result = await invocation
    expectEveryCallAnswered(result.messages)
    return Object.fromEntries(
      [...toolMessages(result.messages)].map(([id, message]) => [id, message.text]),
    )
  } catch (error) {
    if (PlanError.isInstance(error)) return error.code
    throw error
  }
}

/**
 * Edits the newest checkpoint of `thread` in place, as whoever can write the checkpointer's
 * tables can.
 */
async function editCheckpoint(
  checkpointer: MemorySaver,
  thread: Thread,
  edit: (values: Values) => void,
): Promise<void> {
  const tuple = await checkpointer.getTuple(thread)
  if (tuple === undefined) throw new Error('no checkpoint')
  const values = { ...tuple.checkpoint.channel_values }
  edit(values)
  const parent = tuple.parentConfig ?? {
    configurable: { ...thread.configurable, checkpoint_ns: '' },
  }
  const metadata = tuple.metadata ?? { source: 'loop' as const, step: 0, parents: {} }
  await checkpointer.put(parent, { ...tuple.checkpoint, channel_values: values }, metadata)
}

/** The saved state in the checkpoint with its progress reset: no call counted, none done. */
function reset(values: Values): PlanGuardRunState {
  const state = structuredClone(values._planGuardState) as PlanGuardRunState
  const guard = state.guard as unknown as Record<string, unknown>
  guard.calls = 0
  guard.callsPerTool = {}
  guard.status = Object.fromEntries(
    Object.keys(guard.status as object).map((id) => [id, 'pending']),
  )
  return state
}

const FORGERIES: Record<string, (values: Values) => void> = {
  'at the same revision': (values) => {
    values._planGuardState = reset(values)
  },
  'at a higher revision': (values) => {
    const state = reset(values)
    values._planGuardState = { ...state, revision: state.revision + 5 }
  },
  'for a run the store has never seen': (values) => {
    const runId = randomUUID()
    values._planGuardRunId = runId
    values._planGuardState = { ...reset(values), runId }
  },
}

describe('planGuardMiddleware', () => {
  describe('with a guard store, the run state in the agent state', () => {
    for (const kind of STORE_KINDS) {
      for (const [forgery, forge] of Object.entries(FORGERIES)) {
        it(`should never resume from a forged state ${forgery} (${kind} store)`, async () => {
          const checkpointer = new MemorySaver()
          const store = storeOf(kind)
          const thread = { configurable: { thread_id: randomUUID() } }
          const first = processOf(
            checkpointer,
            store,
            reading(read('README.md', 'one'), read('docs/guide.md', 'two')),
          )
          await first.invoke(
            { messages: [new HumanMessage('Read.')] },
            pausing(thread, 'interruptAfter'),
          )
          await first.invoke(null, pausing(thread, 'interruptAfter'))
          expect(workspace.ran).toHaveLength(2)
          await editCheckpoint(checkpointer, thread, forge)
          const second = processOf(checkpointer, store, reading(read('README.md', 'three')))
          const result = await outcome(second.invoke(null, thread))
          // Never resumed from the forged state: both calls still count, or the run is refused.
          if (forgery === 'at the same revision') {
            expect(result).toMatchObject({ three: expect.stringContaining('budget_exhausted') })
          } else {
            expect(result).toBe('state_corrupt')
          }
          expect(workspace.ran).toHaveLength(2)
        })
      }
    }
  })

  describe('with a guard store, a run stopped and resumed in another process', () => {
    const pauses = {
      'after a model call, before its tool call': 'interruptBefore',
      'after a tool call': 'interruptAfter',
    } as const
    for (const kind of STORE_KINDS) {
      for (const exitBehavior of ['continue', 'error'] as const) {
        for (const [point, pause] of Object.entries(pauses)) {
          it(`should go on with its budgets when stopped ${point} (${kind} store, ${exitBehavior})`, async () => {
            const checkpointer = new MemorySaver()
            const store = storeOf(kind)
            const thread = { configurable: { thread_id: randomUUID() } }
            const calls = [read('README.md', 'one'), read('docs/guide.md', 'two')]
            const first = processOf(checkpointer, store, reading(...calls), { exitBehavior })
            await first.invoke({ messages: [new HumanMessage('Read.')] }, pausing(thread, pause))
            const model = reading(...calls.slice(1), read('README.md', 'three'))
            const second = processOf(checkpointer, store, model, { exitBehavior })
            const result = await outcome(second.invoke(null, thread))
            expect(workspace.ran).toEqual([
              `view_file:${join(workspace.root, 'README.md')}`,
              `view_file:${join(workspace.root, 'docs/guide.md')}`,
            ])
            if (exitBehavior === 'error') expect(result).toBe('budget_exhausted')
            else
              expect(result).toMatchObject({ three: expect.stringContaining('budget_exhausted') })
          })
        }
      }

      it(`should report the call a crash interrupted instead of running it again (${kind} store)`, async () => {
        const checkpointer = new MemorySaver()
        const store = storeOf(kind)
        const thread = { configurable: { thread_id: randomUUID() } }
        const crash = crashingWith(checkpointer, store)
        const starts: string[] = []
        const crashing = tool(
          async ({ file }) => {
            starts.push(file)
            crash.now()
            return 'lost'
          },
          { name: 'view_file', description: 'Read.', schema: z.object({ file: z.string() }) },
        )
        await processOf(crash.checkpointer, crash.store, reading(read('README.md', 'one')), {
          tools: [crashing],
        }).invoke({ messages: [new HumanMessage('Read.')] }, thread)
        const model = reading(read('docs/guide.md', 'two'))
        const result = await outcome(processOf(checkpointer, store, model).invoke(null, thread))
        expect(starts).toEqual([join(workspace.root, 'README.md')])
        expect(result).toMatchObject({ one: expect.stringContaining('interrupted_call') })
      })
    }
  })
  describe('with a guard store, two processes resuming one run', () => {
    for (const kind of STORE_KINDS) {
      it(`should start a paused call once when both resume it at the same moment (${kind} store)`, async () => {
        const checkpointer = new MemorySaver()
        const store = storeOf(kind)
        const thread = { configurable: { thread_id: randomUUID() } }
        const first = processOf(checkpointer, store, modelReading('one'))
        await first.invoke(
          { messages: [new HumanMessage('Read.')] },
          pausing(thread, 'interruptBefore'),
        )
        expect(workspace.ran).toEqual([])
        // A redelivered job: two new processes resume the paused run from the same state.
        const [one, two] = await Promise.all(
          [0, 1].map(() =>
            outcome(
              processOf(checkpointer, store, scriptedModel([{ text: 'Done.' }])).invoke(
                null,
                thread,
              ),
            ),
          ),
        )
        expect(workspace.ran).toEqual([`view_file:${join(workspace.root, 'README.md')}`])
        // One went on; the other's call was refused before its tool started.
        const answers = [one, two].map((result) =>
          typeof result === 'string'
            ? result
            : (/store_failed/.exec(result?.one ?? '')?.[0] ?? 'ran'),
        )
        expect(answers.sort()).toEqual(['ran', 'store_failed'])
      })
    }
  })
  describe('with a guard store that cannot save', () => {
    /** `store`, whose saves fail while `failing()` says so. */
    function failingWhen(store: GuardStore, failing: () => boolean): GuardStore {
      return {
        load: (runId) => store.load(runId),
        save: async (runId, saved) => {
          if (failing()) throw new Error('connection lost')
          await store.save(runId, saved)
        },
        reserve: (reservations) => store.reserve(reservations),
      }
    }

    it('should end the run with store_failed when a model call cannot save its state', async () => {
      const store = failingWhen(createMemoryGuardStore(), () => true)
      const agent = processOf(new MemorySaver(), store, reading(read('README.md', 'one')))
      const result = await outcome(
        agent.invoke(
          { messages: [new HumanMessage('Read.')] },
          { configurable: { thread_id: randomUUID() } },
        ),
      )
      expect(result).toBe('store_failed')
      expect(workspace.ran).toEqual([])
    })

    it('should not write a state the store could not save after a call, so the run still resumes', async () => {
      const checkpointer = new MemorySaver()
      const store = createMemoryGuardStore()
      const thread = { configurable: { thread_id: randomUUID() } }
      let ran = false
      const viewFile = tool(
        async ({ file }) => {
          ran = true
          return `read ${file}`
        },
        { name: 'view_file', description: 'Read.', schema: z.object({ file: z.string() }) },
      )
      const first = processOf(
        checkpointer,
        failingWhen(store, () => ran),
        modelReading('one'),
        {
          tools: [viewFile],
        },
      )
      await first.invoke(
        { messages: [new HumanMessage('Read.')] },
        pausing(thread, 'interruptAfter'),
      )
      const written = (await checkpointer.getTuple(thread))?.checkpoint.channel_values
        ._planGuardState as PlanGuardRunState
      const stored = (await store.load(written.runId))?.state as PlanGuardRunState
      expect(stored.revision).toBeGreaterThan(written.revision)
      const second = processOf(checkpointer, store, modelReading('two'), { tools: [viewFile] })
      expect(typeof (await outcome(second.invoke(null, thread)))).toBe('object')
    })
  })
})
