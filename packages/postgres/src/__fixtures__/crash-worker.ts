// One "process" of a guarded agent run, for the crash tests: it runs an agent whose tool
// records each start in `starts.log` and, while `hang` exists, never returns (the parent then
// kills this process). On stdout: the decisions the guard made, as JSON.
import { appendFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { AIMessage, HumanMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { Command, interrupt } from '@langchain/langgraph'
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres'
import { PostgresStore } from '@langchain/langgraph-checkpoint-postgres/store'
import { createPlanGuardedTools } from '@plan/ai-sdk'
import {
  createSignedGuardStore,
  type InterruptedCall,
  PlanError,
  type PlanIssue,
  type PolicyInput,
} from '@plan/core'
import { planGuardMiddleware } from '@plan/langchain'
import { createPostgresGuardStore } from '@plan/postgres'
import { tool as aiTool, generateText, stepCountIs } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { createAgent, tool } from 'langchain'
import { z } from 'zod'

interface WorkerOptions {
  readonly adapter: 'langchain' | 'ai-sdk'
  readonly url: string
  readonly prefix: string
  readonly runId: string
  readonly dir: string
  readonly idempotent: boolean
  readonly maxCalls: number
  /**
   * False: the LangChain run keeps its guard state only in the checkpoint. `signed`: the store
   * is wrapped by `createSignedGuardStore`. `langgraph`: no @plan store; the agent has
   * LangGraph's `PostgresStore`, which the middleware uses.
   */
  readonly store: boolean | 'signed' | 'langgraph'
  /** True: a human approves running an interrupted call again. */
  readonly retry: boolean
  /** LangChain: the interrupted call is put to a human through LangGraph's `interrupt()`, who approves it. */
  readonly review: boolean
  /** AI SDK: per-turn mode (no plan; each model response's calls are one turn). */
  readonly perTurn: boolean
}

const options = JSON.parse(process.env.PLAN_CRASH_WORKER ?? '{}') as WorkerOptions
const decisions: { allowed: boolean; codes: string[] }[] = []
/** What the run put to a human (LangGraph interrupts). */
const reviews: unknown[] = []
const record = (allowed: boolean, issues: readonly PlanIssue[]) =>
  decisions.push({ allowed, codes: issues.map((issue) => issue.code) })

async function slowWrite({ name }: { name: string }): Promise<string> {
  appendFileSync(join(options.dir, 'starts.log'), `${name}\n`)
  if (existsSync(join(options.dir, 'hang'))) {
    // Never returns: the parent kills this process while the tool runs.
    await new Promise(() => setInterval(() => undefined, 60_000))
  }
  return `wrote ${name}`
}

const policy: PolicyInput = {
  version: 1,
  workspace: { roots: [options.dir] },
  tools: {
    slow_write: { args: { name: { type: 'string' } }, idempotent: options.idempotent },
  },
  budgets: { maxCalls: options.maxCalls },
}
const postgres = createPostgresGuardStore({
  connectionString: options.url,
  tablePrefix: options.prefix,
})
const store =
  options.store === 'signed'
    ? createSignedGuardStore(postgres, { keys: ['crash-worker-state-key'.padEnd(32, '.')] })
    : postgres

async function runLangChain(): Promise<void> {
  const checkpointer = PostgresSaver.fromConnString(options.url)
  await checkpointer.setup()
  const agentStore =
    options.store === 'langgraph' ? PostgresStore.fromConnString(options.url) : undefined
  await agentStore?.setup()
  const resuming = !existsSync(join(options.dir, 'hang'))
  const model = fakeModel()
  if (!resuming) model.respondWithTools([{ name: 'slow_write', args: { name: 'a' }, id: 'c1' }])
  model.respond(new AIMessage('Done.'))
  const agent = createAgent({
    model,
    tools: [
      tool(slowWrite, {
        name: 'slow_write',
        description: 'Write slowly.',
        schema: z.object({ name: z.string() }),
      }),
    ],
    checkpointer,
    ...(agentStore === undefined ? {} : { store: agentStore }),
    middleware: [
      planGuardMiddleware({
        policy,
        ...(options.store === true || options.store === 'signed' ? { store } : {}),
        ...(options.retry ? { retryInterrupted: () => true } : {}),
        ...(options.review
          ? {
              retryInterrupted: (call: InterruptedCall) =>
                interrupt({ interrupted: call }) === true,
            }
          : {}),
        onDecision: (decision) => record(decision.allowed, decision.issues),
      }),
    ],
  })
  // The checkpoint of each step is written before the next starts, so the run id survives a kill.
  const config = { configurable: { thread_id: options.runId }, durability: 'sync' as const }
  try {
    const result = await agent.invoke(
      resuming ? null : { messages: [new HumanMessage('Write a.')] },
      config,
    )
    const paused = (result as { __interrupt__?: { value: unknown }[] }).__interrupt__ ?? []
    for (const entry of paused) reviews.push(entry.value)
    // The human approves: the run goes on from where it asked.
    if (paused.length > 0) await agent.invoke(new Command({ resume: true }), config)
  } finally {
    await checkpointer.end()
    await agentStore?.stop()
  }
}

function aiModel(): MockLanguageModelV4 {
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  }
  let calls = 0
  return new MockLanguageModelV4({
    doGenerate: async () =>
      calls++ === 0
        ? {
            content: [
              {
                type: 'tool-call' as const,
                toolCallId: `c-${process.pid}`,
                toolName: 'slow_write',
                input: JSON.stringify({ name: 'a' }),
              },
            ],
            finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
            usage,
            warnings: [],
          }
        : {
            content: [{ type: 'text' as const, text: 'Done.' }],
            finishReason: { unified: 'stop' as const, raw: 'stop' },
            usage,
            warnings: [],
          },
  })
}

async function runAiSdk(): Promise<void> {
  const { tools, prepareStep } = await createPlanGuardedTools({
    tools: {
      slow_write: aiTool({
        description: 'Write slowly.',
        inputSchema: z.object({ name: z.string() }),
        execute: slowWrite,
      }),
    },
    policy,
    ...(options.perTurn
      ? {}
      : { plan: [{ id: 'write', tool: 'slow_write', args: { name: 'a' } }] }),
    store,
    runId: options.runId,
    // Each call's decision; a per-turn batch also reports the turn as a whole.
    onDecision: (event) => {
      if (event.kind === 'call') record(event.allowed, event.issues)
    },
  })
  // The app runs the conversation again after a crash; the model asks for the same call.
  await generateText({
    model: aiModel(),
    tools,
    prepareStep,
    prompt: 'Write a.',
    stopWhen: stepCountIs(4),
  })
}

let refusal: { planError: boolean; codes: string[] } | null = null
try {
  if (options.adapter === 'langchain') await runLangChain()
  else await runAiSdk()
} catch (error) {
  if (!PlanError.isInstance(error)) throw error
  refusal = { planError: true, codes: error.issues.map((issue) => issue.code) }
}
await postgres.close()
process.stdout.write(`${JSON.stringify({ decisions, refusal, reviews })}\n`)
