// One "process" of a guarded LangChain run whose tool asks a human (LangGraph's `interrupt()`)
// before it writes `a`: invocation 0 starts the run, each later one resumes it, and the process
// ends while the run waits. On stdout: the decisions the guard made and whether the run paused.
import { appendFileSync } from 'node:fs'
import { join } from 'node:path'
import { AIMessage, HumanMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { Command, interrupt } from '@langchain/langgraph'
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres'
import type { PolicyInput } from '@plan/core'
import { planGuardMiddleware } from '@plan/langchain'
import { createPostgresGuardStore } from '@plan/postgres'
import { createAgent, tool } from 'langchain'
import { z } from 'zod'

interface WorkerOptions {
  readonly url: string
  readonly prefix: string
  readonly runId: string
  readonly dir: string
  /** How many times the tool asks before it writes `a`. */
  readonly asks: number
  /** 0 starts the run; n resumes it for the n-th time. */
  readonly invocation: number
}

const options = JSON.parse(process.env.PLAN_PAUSE_WORKER ?? '{}') as WorkerOptions
const decisions: { callId: string; allowed: boolean; codes: string[] }[] = []

const write = tool(
  async ({ name }) => {
    for (let index = 0; name === 'a' && index < options.asks; index += 1) interrupt({ name, index })
    appendFileSync(join(options.dir, 'ran.log'), `${name}\n`)
    return `wrote ${name}`
  },
  { name: 'write', description: 'Write.', schema: z.object({ name: z.string() }) },
)

const policy: PolicyInput = {
  version: 1,
  workspace: { roots: [options.dir] },
  tools: { write: { args: { name: { type: 'string' } } } },
  budgets: {
    maxIdenticalCalls: 1,
    shared: { writes: { per: 'tenant', tools: ['write'], maxCalls: 3 } },
  },
}

/** The model's turns this process serves: the first call, or, once `a` is written, the rest. */
function model() {
  const built = fakeModel()
  const call = (name: string, id: string) =>
    built.respondWithTools([{ name: 'write', args: { name }, id }])
  if (options.invocation === 0) call('a', 'c1')
  if (options.invocation === options.asks) {
    call('b', 'c2')
    call('c', 'c3')
    call('d', 'c4')
    built.respond(new AIMessage('Done.'))
  }
  return built
}

const store = createPostgresGuardStore({
  connectionString: options.url,
  tablePrefix: options.prefix,
})
const checkpointer = PostgresSaver.fromConnString(options.url)
await checkpointer.setup()
const agent = createAgent({
  model: model(),
  tools: [write],
  checkpointer,
  middleware: [
    planGuardMiddleware({
      policy,
      store,
      keys: { tenant: 'acme' },
      onDecision: (decision) => {
        if (decision.kind !== 'call') return
        const codes = decision.issues.map((issue) => issue.code)
        decisions.push({ callId: decision.callId ?? '', allowed: decision.allowed, codes })
      },
    }),
  ],
})
const config = { configurable: { thread_id: options.runId }, durability: 'sync' as const }
const result = await agent.invoke(
  options.invocation === 0
    ? { messages: [new HumanMessage('Write a, b, c and d.')] }
    : new Command({ resume: 'yes' }),
  config,
)
await checkpointer.end()
await store.close()
const paused = (result as { __interrupt__?: unknown[] }).__interrupt__ !== undefined
process.stdout.write(`${JSON.stringify({ decisions, paused })}\n`)
