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

/** One CPU clock's time per run against the baseline's, in µs (medians). */
function cpuAgainst(value: Sampled, baseline: Sampled): string {
  const added = round((value.median - baseline.median) * 1000)
  return `${round(value.median * 1000)} µs against ${round(baseline.median * 1000)} µs, adds ${added} µs`
}

/**
 * CPU time per run beside the wall time, which a busy machine moves most: of the whole process,
 * and of the main thread alone (without the collector's and compiler's helper threads).
 */
function cpuNote(value: Sampled, baseline: Sampled): string {
  const all =
    value.cpu === undefined || baseline.cpu === undefined
      ? ''
      : `; CPU time per run (all threads) ${cpuAgainst(value.cpu, baseline.cpu)}`
  const main =
    value.thread === undefined || baseline.thread === undefined
      ? ''
      : `; main thread ${cpuAgainst(value.thread, baseline.thread)}`
  return all + main
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
  const arms = JSON.parse(stdout) as { wall: number[]; cpu: number[]; thread: number[] }[]
  if (arms.length !== AI_SDK_ARMS.length) throw new Error('the AI SDK child measured no rows')
  return arms.map((arm) => sampled(arm.wall, arm.cpu, arm.thread))
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
  const clock = (arm: number, read: (sampled: Sampled) => Sampled | undefined) =>
    processes.map((arms) => (read(arms[arm] as Sampled) ?? { median: Number.NaN }).median)
  const medians = (arm: number) =>
    sampled(
      clock(arm, (arm) => arm),
      clock(arm, (arm) => arm.cpu),
      clock(arm, (arm) => arm.thread),
    )
  const [bare, hooks, guarded] = [0, 1, 2].map(medians) as [Sampled, Sampled, Sampled]
  return [
    row(
      'AI SDK generateText + createPlanGuardedTools (per-turn), MockLanguageModelV4, 1 tool call',
      guarded,
      'the same call with the unwrapped tools',
      bare,
      perProcessNote(processes, 2),
    ),
    row(
      'AI SDK generateText + pass-through hooks (wrapped execute, toolApproval, prepareStep with a wrapped model)',
      hooks,
      'the same call with the unwrapped tools',
      bare,
      perProcessNote(processes, 1),
    ),
  ]
}

/**
 * µs an arm adds per run in each process, round by round against the bare arm: min / median /
 * max of the processes' medians, in wall time and, where counted, in main-thread CPU time.
 */
function perProcessNote(processes: readonly Sampled[][], arm: number): string {
  const medianDifference = (read: (sampled: Sampled) => Sampled | undefined) =>
    processes.map((arms) => {
      const value = read(arms[arm] as Sampled)
      const baseline = read(arms[0] as Sampled)
      return value === undefined || baseline === undefined
        ? Number.NaN
        : spreadOf(pairedDifferences(value, baseline)).median
    })
  const wall = medianDifference((sampled) => sampled)
  const thread = medianDifference((sampled) => sampled.thread)
  const threadNote = thread.some(Number.isNaN)
    ? ''
    : `, main-thread CPU time ${microseconds(thread)} µs`
  return `per process (min / median / max of ${AI_SDK.processes} processes' paired medians over ${AI_SDK.batches} rounds each): wall ${microseconds(wall)} µs${threadNote}`
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
