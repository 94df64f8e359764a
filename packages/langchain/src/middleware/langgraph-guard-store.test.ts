import { randomUUID } from 'node:crypto'
import { HumanMessage } from '@langchain/core/messages'
import { InMemoryStore, MemorySaver } from '@langchain/langgraph'
import { createAgent, tool } from 'langchain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { scriptedModel } from '../test/index.js'
import { type AgentWorkspace, createAgentWorkspace } from '../test-utils/workspace.js'
import { guardStoreFromLangGraph, isLangGraphStore } from './langgraph-guard-store.js'
import { planGuardMiddleware } from './plan-guard-middleware.js'

const reservation = { budget: 'shell', key: 'acme', windowStart: 0, maxCalls: 2 }

describe('guardStoreFromLangGraph', () => {
  it('should load what it saved, \\u0000 included, and refuse a second writer', async () => {
    const store = guardStoreFromLangGraph(new InMemoryStore())
    const first = { id: 'first', loadedRevision: 0 }
    await store.save('run', { revision: 1, state: { key: 'a\u0000b' }, writer: first })
    expect(await store.load('run')).toEqual({ revision: 1, state: { key: 'a\u0000b' } })
    await expect(
      store.save('run', { revision: 1, state: {}, writer: { id: 'second', loadedRevision: 0 } }),
    ).rejects.toMatchObject({ code: 'store_failed' })
    expect(await store.load('other')).toBeUndefined()
  })

  it('should refuse to count a shared budget, and reserve nothing when none applies', async () => {
    const store = guardStoreFromLangGraph(new InMemoryStore())
    expect(await store.reserve([])).toEqual({ reserved: true })
    await expect(store.reserve([reservation])).rejects.toThrow('@plan/postgres')
  })

  it('should tell a LangGraph store from other values', () => {
    expect(isLangGraphStore(new InMemoryStore())).toBe(true)
    expect(isLangGraphStore({ get: () => undefined })).toBe(false)
    expect(isLangGraphStore(undefined)).toBe(false)
  })
})

describe('planGuardMiddleware with an agent store', () => {
  let workspace: AgentWorkspace

  beforeEach(async () => {
    workspace = await createAgentWorkspace()
  })

  afterEach(async () => {
    await workspace.cleanup()
  })

  it('should save the run in the agent’s LangGraph store before the tool starts', async () => {
    const agentStore = new InMemoryStore()
    const seen: unknown[] = []
    const note = tool(
      async () => {
        const items = await agentStore.search(['plan-guard', 'runs'])
        seen.push(items.map((item) => JSON.parse(String(item.value.state)).guard.status))
        return 'noted'
      },
      { name: 'note', description: 'Note.', schema: z.object({ text: z.string() }) },
    )
    const agent = createAgent({
      model: scriptedModel([
        { calls: [{ id: 'n1', tool: 'note', args: { text: 'hi' } }] },
        { text: 'Done.' },
      ]),
      tools: [note],
      checkpointer: new MemorySaver(),
      store: agentStore,
      middleware: [
        planGuardMiddleware({
          policy: workspace.policy({ tools: { note: { args: { text: { type: 'string' } } } } }),
        }),
      ],
    })
    await agent.invoke(
      { messages: [new HumanMessage('Note hi.')] },
      { configurable: { thread_id: randomUUID() } },
    )
    expect(seen).toEqual([[{ n1: 'running' }]])
  })
})
