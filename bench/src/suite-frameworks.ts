import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { AIMessage, HumanMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { createPlanGuardedTools } from '@plan/ai-sdk'
import { createPlanCompiler, type PlanCompiler } from '@plan/core'
import { planGuardMiddleware } from '@plan/langchain'
import {
  tool as aiTool,
  generateText,
  type LanguageModel,
  type LanguageModelMiddleware,
  stepCountIs,
  type ToolSet,
  wrapLanguageModel,
} from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { createAgent, tool as langchainTool, toolCallLimitMiddleware } from 'langchain'
import { z } from 'zod'
import { type Row, round, roundSpread, type Spread, spreadOf } from './measure.ts'

// Runs per timed batch and batches per row; each batch is one sample of the min / median / max.
// An AI SDK run is short (≈ 0.3 ms): more and longer batches keep a collection or a busy
// neighbour from deciding its row.
const LANGCHAIN = { runs: 100, batches: 11 }
const AI_SDK = { runs: 200, batches: 41 }
// unmeasured batches first, so both sides are measured once the JIT has compiled them
const WARMUP_BATCHES = 3

type Run = () => Promise<unknown>

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
}

function aiSdkModel() {
  let calls = 0
  return new MockLanguageModelV4({
    doGenerate: async () => {
      calls += 1
      if (calls === 1) {
        return {
          content: [
            {
              type: 'tool-call' as const,
              toolCallId: 'c1',
              toolName: 'echo',
              input: JSON.stringify({ text: 'hello' }),
            },
          ],
          finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
          usage,
          warnings: [],
        }
      }
      return {
        content: [{ type: 'text' as const, text: 'done' }],
        finishReason: { unified: 'stop' as const, raw: 'stop' },
        usage,
        warnings: [],
      }
    },
  })
}

async function batchTime(fn: Run, runs: number): Promise<number> {
  const start = performance.now()
  for (let index = 0; index < runs; index += 1) await fn()
  return (performance.now() - start) / runs
}

/** A spread that keeps its samples, one per round, in the order they were taken. */
interface Sampled extends Spread {
  readonly samples: readonly number[]
}

/**
 * Time per run of each function, in batches taken in turn (one batch of each, then again), so
 * a measurement and its baseline see the same load on a shared machine; every other round takes
 * them in reverse order, so none always follows the same one.
 */
async function perRunInterleaved(
  fns: readonly Run[],
  plan: { runs: number; batches: number },
): Promise<Sampled[]> {
  const samples: number[][] = fns.map(() => [])
  const order = [...fns.keys()]
  for (let batch = 0; batch < WARMUP_BATCHES + plan.batches; batch += 1) {
    for (const index of batch % 2 === 0 ? order : order.toReversed()) {
      const time = await batchTime(fns[index] as Run, plan.runs)
      if (batch >= WARMUP_BATCHES) samples[index]?.push(time)
    }
  }
  return samples.map((times) => ({ ...spreadOf(times), samples: times }))
}

/**
 * µs added per run, round by round (each round times the value and its baseline one after the
 * other, under the same load): min / median / max of the differences.
 */
function pairedDifference(value: Sampled, baseline: Sampled): string {
  const differences = value.samples.map((time, index) => time - (baseline.samples[index] ?? 0))
  const spread = roundSpread(spreadOf(differences.map((difference) => difference * 1000)))
  return `${spread.min} / ${spread.median} / ${spread.max}`
}

function row(suiteCase: string, value: Sampled, baseline: string, baselineValue: Sampled): Row {
  return {
    suite: 'frameworks',
    case: suiteCase,
    value: round(value.median),
    valueSpread: roundSpread(value),
    unit: 'ms/run',
    baseline,
    baselineValue: round(baselineValue.median),
    baselineSpread: roundSpread(baselineValue),
    ratio: round(value.median / baselineValue.median),
    note: `adds ${round((value.median - baselineValue.median) * 1000)} µs per run (median − median) with one tool call; per round (min / median / max): ${pairedDifference(value, baselineValue)} µs`,
  }
}

/** A LangChain agent run with one tool call: bare, with LangChain's limit, with the guard. */
async function langchainRows(compiler: PlanCompiler): Promise<Row[]> {
  const echo = langchainTool(async ({ text }: { text: string }) => text, {
    name: 'echo',
    description: 'Echo.',
    schema: z.object({ text: z.string() }),
  })
  const script = () =>
    fakeModel()
      .respondWithTools([{ name: 'echo', args: { text: 'hello' }, id: 'c1' }])
      .respond(new AIMessage('done'))
  const agentRun =
    (
      middleware:
        | ReturnType<typeof planGuardMiddleware>[]
        | ReturnType<typeof toolCallLimitMiddleware>[],
    ) =>
    async () => {
      const agent = createAgent({ model: script(), tools: [echo], middleware })
      await agent.invoke({ messages: [new HumanMessage('go')] })
    }
  const [bare, limit, guarded] = (await perRunInterleaved(
    [
      agentRun([]),
      agentRun([toolCallLimitMiddleware({ runLimit: 100 })]),
      agentRun([planGuardMiddleware({ compiler })]),
    ],
    LANGCHAIN,
  )) as [Sampled, Sampled, Sampled]
  return [
    row(
      'LangChain createAgent + planGuardMiddleware (per-turn), fakeModel, 1 tool call',
      guarded,
      'the same agent without middleware',
      bare,
    ),
    row(
      'LangChain createAgent + toolCallLimitMiddleware (LangChain’s own)',
      limit,
      'the same agent without middleware',
      bare,
    ),
  ]
}

/**
 * The AI SDK's own cost of the hooks the guard uses, with hooks that do nothing: each tool's
 * `execute` wrapped, a `toolApproval` that approves, a `prepareStep` that hands over the model
 * wrapped in a pass-through middleware and narrows `activeTools`, and a `stopWhen`.
 */
function passThroughHooks(tools: ToolSet) {
  const wrapped: ToolSet = {}
  for (const [name, tool] of Object.entries(tools)) {
    const execute = tool.execute
    wrapped[name] = { ...tool, execute: async (input, options) => execute?.(input, options) }
  }
  const middleware: LanguageModelMiddleware = {
    specificationVersion: 'v4',
    wrapGenerate: async ({ doGenerate }) => doGenerate(),
  }
  const names = Object.keys(tools)
  return {
    tools: wrapped,
    toolApproval: async () => 'not-applicable' as const,
    prepareStep: ({ model }: { model: LanguageModel }) => ({
      model: wrapLanguageModel({ model: model as Exclude<LanguageModel, string>, middleware }),
      activeTools: [...names],
    }),
    stopWhen: () => false,
  }
}

/**
 * An AI SDK `generateText` run with one tool call: unwrapped, through pass-through hooks (the
 * SDK's own cost of the hook points), and guarded (set up per run).
 */
async function aiSdkRows(compiler: PlanCompiler): Promise<Row[]> {
  const echo = {
    echo: aiTool({
      description: 'Echo.',
      inputSchema: z.object({ text: z.string() }),
      execute: async ({ text }: { text: string }) => text,
    }),
  }
  const bareRun = async () => {
    await generateText({ model: aiSdkModel(), tools: echo, stopWhen: stepCountIs(5), prompt: 'go' })
  }
  const hooksRun = async () => {
    const hooks = passThroughHooks(echo)
    await generateText({
      model: aiSdkModel(),
      tools: hooks.tools,
      toolApproval: hooks.toolApproval,
      prepareStep: hooks.prepareStep,
      stopWhen: [hooks.stopWhen, stepCountIs(5)],
      prompt: 'go',
    })
  }
  const guardedRun = async () => {
    const guarded = await createPlanGuardedTools({ tools: echo, compiler })
    await generateText({
      model: aiSdkModel(),
      tools: guarded.tools,
      toolApproval: guarded.toolApproval,
      prepareStep: guarded.prepareStep,
      stopWhen: [guarded.stopWhen, stepCountIs(5)],
      prompt: 'go',
    })
  }
  const [bare, hooks, guarded] = (await perRunInterleaved(
    [bareRun, hooksRun, guardedRun],
    AI_SDK,
  )) as [Sampled, Sampled, Sampled]
  return [
    row(
      'AI SDK generateText + createPlanGuardedTools (per-turn), MockLanguageModelV4, 1 tool call',
      guarded,
      'the same call with the unwrapped tools',
      bare,
    ),
    row(
      'AI SDK generateText + pass-through hooks (wrapped execute, toolApproval, prepareStep with a wrapped model)',
      hooks,
      'the same call with the unwrapped tools',
      bare,
    ),
  ]
}

/** One agent run with one tool call, with and without the guard, in each framework. */
export async function frameworksSuite(): Promise<Row[]> {
  const root = await mkdtemp(join(tmpdir(), 'plan-bench-'))
  await writeFile(join(root, 'README.md'), '# bench\n')
  try {
    const compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: [root] },
      tools: { echo: { args: { text: { type: 'string' } } } },
      budgets: { maxCalls: 1000 },
    })
    return [...(await langchainRows(compiler)), ...(await aiSdkRows(compiler))]
  } finally {
    await rm(root, { recursive: true, force: true })
  }
}
