import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { AIMessage, HumanMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { createPlanCompiler, type PlanCompiler } from '@plan/core'
import { planGuardMiddleware } from '@plan/langchain'
import { createAgent, tool as langchainTool, toolCallLimitMiddleware } from 'langchain'
import { z } from 'zod'
import { AI_SDK_ARMS } from './ai-sdk-runs.ts'
import { pairedDifferences, perRunInterleaved, type Sampled, sampled } from './interleave.ts'
import { type Row, round, roundSpread, spreadOf } from './measure.ts'
import { echoPolicy } from './plans.ts'

const execFileAsync = promisify(execFile)
const aiSdkChild = fileURLToPath(new URL('./ai-sdk-child.ts', import.meta.url))

// Runs per timed batch and batches per row (per process for the AI SDK); each batch is one
// sample of the min / median / max.
const LANGCHAIN = { runs: 100, batches: 11 }
// An AI SDK run is short (≈ 0.15 ms): one process's JIT, heap and code layout move its row by
// more than the guard costs, so its rows take the median over fresh processes, one after another.
const AI_SDK = { runs: 200, batches: 11, processes: 7 }

/** min / median / max, rounded, of times in ms given in µs. */
function microseconds(times: readonly number[]): string {
  const spread = roundSpread(spreadOf(times.map((time) => time * 1000)))
  return `${spread.min} / ${spread.median} / ${spread.max}`
}

/**
 * µs added per run, round by round (each round times the value and its baseline one after the
 * other, under the same load): min / median / max of the differences.
 */
function pairedDifference(value: Sampled, baseline: Sampled): string {
  return `per round (min / median / max): ${microseconds(pairedDifferences(value, baseline))} µs`
}

function row(
  suiteCase: string,
  value: Sampled,
  baseline: string,
  baselineValue: Sampled,
  paired: string,
): Row {
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
    note: `adds ${round((value.median - baselineValue.median) * 1000)} µs per run (median − median) with one tool call; ${paired}${cpuNote(value, baselineValue)}`,
  }
}

/** CPU time per run beside the wall time: a busy machine moves it less. */
function cpuNote(value: Sampled, baseline: Sampled): string {
  if (value.cpu === undefined || baseline.cpu === undefined) return ''
  const added = round((value.cpu.median - baseline.cpu.median) * 1000)
  return `; CPU time per run ${round(value.cpu.median * 1000)} µs against ${round(baseline.cpu.median * 1000)} µs, adds ${added} µs`
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
      pairedDifference(guarded, bare),
    ),
    row(
      'LangChain createAgent + toolCallLimitMiddleware (LangChain’s own)',
      limit,
      'the same agent without middleware',
      bare,
      pairedDifference(limit, bare),
    ),
  ]
}

/** Each arm's samples from one fresh process (see `ai-sdk-child.ts`), in `AI_SDK_ARMS` order. */
async function aiSdkProcess(root: string): Promise<Sampled[]> {
  const { stdout } = await execFileAsync(
    process.execPath,
    [aiSdkChild, root, String(AI_SDK.runs), String(AI_SDK.batches)],
    { maxBuffer: 1 << 20 },
  )
  const arms = JSON.parse(stdout) as { wall: number[]; cpu: number[] }[]
  if (arms.length !== AI_SDK_ARMS.length) throw new Error('the AI SDK child measured no rows')
  return arms.map((arm) => sampled(arm.wall, arm.cpu))
}

/**
 * An AI SDK `generateText` run with one tool call (see `ai-sdk-runs.ts`), in fresh processes
 * taken one after another, each interleaving its arms as the LangChain rows do. A row's spreads
 * are over the processes' medians; its paired note over each process's median of the
 * differences round by round.
 */
async function aiSdkRows(root: string): Promise<Row[]> {
  const processes: Sampled[][] = []
  for (let index = 0; index < AI_SDK.processes; index += 1) processes.push(await aiSdkProcess(root))
  const medians = (arm: number) =>
    sampled(
      processes.map((arms) => (arms[arm] as Sampled).median),
      processes.map((arms) => (arms[arm] as Sampled).cpu?.median ?? Number.NaN),
    )
  const perProcess = (arm: number) => {
    const differences = processes.map((arms) =>
      spreadOf(pairedDifferences(arms[arm] as Sampled, arms[0] as Sampled)),
    )
    return `per process (min / median / max of ${AI_SDK.processes} processes' paired medians over ${AI_SDK.batches} rounds each): ${microseconds(differences.map((spread) => spread.median))} µs`
  }
  const [bare, hooks, guarded] = [0, 1, 2].map(medians) as [Sampled, Sampled, Sampled]
  return [
    row(
      'AI SDK generateText + createPlanGuardedTools (per-turn), MockLanguageModelV4, 1 tool call',
      guarded,
      'the same call with the unwrapped tools',
      bare,
      perProcess(2),
    ),
    row(
      'AI SDK generateText + pass-through hooks (wrapped execute, toolApproval, prepareStep with a wrapped model)',
      hooks,
      'the same call with the unwrapped tools',
      bare,
      perProcess(1),
    ),
  ]
}

/** One agent run with one tool call, with and without the guard, in each framework. */
export async function frameworksSuite(): Promise<Row[]> {
  const root = await mkdtemp(join(tmpdir(), 'plan-bench-'))
  await writeFile(join(root, 'README.md'), '# bench\n')
  try {
    const compiler = await createPlanCompiler(echoPolicy(root))
    return [...(await langchainRows(compiler)), ...(await aiSdkRows(root))]
  } finally {
    await rm(root, { recursive: true, force: true })
  }
}
