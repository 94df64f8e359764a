import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { createPlanCompiler, createPlanGuard, executePlan } from '@plan/core'
import { type Row, random, round, spreadFields, spreadOf } from './measure.ts'

const STEPS = 1000
const SLEEP_MS = 10
const WINDOW = 40

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds))

/** A random DAG: each step depends on 0 to 3 of the WINDOW steps before it. */
function randomSleepPlan(seed: number) {
  const next = random(seed)
  return Array.from({ length: STEPS }, (_, index) => {
    const deps = new Set<string>()
    const count = index === 0 ? 0 : Math.floor(next() * 4)
    for (let draw = 0; draw < count; draw += 1)
      deps.add(`s${Math.max(0, index - 1 - Math.floor(next() * WINDOW))}`)
    return { id: `s${index}`, tool: 'work', args: { n: index }, depends_on: [...deps] }
  })
}

const SEEDS = [1, 2, 3]
/** Runs of each seed with unbounded concurrency, interleaved across seeds. */
const RUNS = 5
/** Runs of the sequential baseline (about 10 s each). */
const SEQUENTIAL_RUNS = 3
/** Length of the bare timer chain that shows the floor set by `setTimeout` itself. */
const BARE_CHAIN = 64

type Compiler = Awaited<ReturnType<typeof createPlanCompiler>>
type Plan = ReturnType<Compiler['compile']>

async function makespan(compiler: Compiler, plan: Plan, concurrency: number): Promise<number> {
  const start = performance.now()
  const result = await executePlan(plan, { work: () => sleep(SLEEP_MS) }, { compiler, concurrency })
  const elapsed = performance.now() - start
  if (result.status !== 'completed') throw new Error(`run ended ${result.status}`)
  return elapsed
}

async function bareChain(): Promise<number> {
  const start = performance.now()
  for (let index = 0; index < BARE_CHAIN; index += 1) await sleep(SLEEP_MS)
  return performance.now() - start
}

/**
 * Makespans of 1,000-step random DAGs of 10 ms tools, several runs each, against the
 * critical-path bound; seed 1 also against concurrency 1. A bare chain of `setTimeout(10)`
 * measured alongside shows the floor the timers alone set.
 */
async function makespanRows(compiler: Compiler): Promise<Row[]> {
  await makespan(compiler, compiler.compile(randomSleepPlan(0)), Number.POSITIVE_INFINITY)
  const plans = SEEDS.map((seed) => compiler.compile(randomSleepPlan(seed)))
  const times: number[][] = plans.map(() => [])
  const bare: number[] = []
  const sequential: number[] = []
  // Round-robin, so that a slow moment of the machine hits every case alike.
  for (let run = 0; run < RUNS; run += 1) {
    for (const [index, plan] of plans.entries())
      times[index]?.push(await makespan(compiler, plan, Number.POSITIVE_INFINITY))
    bare.push(await bareChain())
    if (run < SEQUENTIAL_RUNS) sequential.push(await makespan(compiler, plans[0] as Plan, 1))
  }
  const floor = spreadOf(bare.map((time) => time / (BARE_CHAIN * SLEEP_MS)))
  const rows: Row[] = plans.map((plan, index) => {
    const bound = plan.criticalPathLength * SLEEP_MS
    const spread = spreadOf(times[index] as number[])
    return {
      suite: 'executor',
      case: `makespan, random DAG seed ${SEEDS[index]} (1,000 steps, critical path ${plan.criticalPathLength}, tools sleep 10 ms), ${RUNS} runs`,
      ...spreadFields(spread, null),
      unit: 'ms',
      baseline: 'critical-path lower bound (critical path × 10 ms)',
      baselineValue: bound,
      ratio: round(spread.median / bound),
      target: '≤ 1.05×',
      note: `(min ${round(spread.min / bound)}×; a bare chain of ${BARE_CHAIN} setTimeout(10) in the same runs: ${round(floor.min)} / ${round(floor.median)} / ${round(floor.max)}×)`,
    }
  })
  const unbounded = spreadOf(times[0] as number[])
  const serial = spreadOf(sequential)
  rows.push({
    suite: 'executor',
    case: `makespan, random DAG seed ${SEEDS[0]}, unbounded concurrency`,
    ...spreadFields(unbounded, serial),
    unit: 'ms',
    baseline: `the same plan with concurrency 1, ${SEQUENTIAL_RUNS} runs`,
    note: `speed-up ${round(serial.median / unbounded.median)}×`,
  })
  return rows
}

/** Makespan of 1,000-step DAGs of 10 ms tools against the critical-path bound and sequential runs; authorize cost. */
export async function executorSuite(): Promise<Row[]> {
  const rows: Row[] = []
  const root = await mkdtemp(join(tmpdir(), 'plan-bench-'))
  try {
    const compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: [root] },
      tools: {
        work: { args: { n: { type: 'number' } } },
        echo: { args: { text: { type: 'string' } } },
      },
      budgets: { maxSteps: STEPS, maxFanOut: STEPS },
    })
    rows.push(...(await makespanRows(compiler)))
    const calls = Array.from({ length: STEPS }, (_, index) => ({
      id: `e${index}`,
      tool: 'echo',
      args: { text: `message ${index}` },
    }))
    const echoPlan = compiler.compile(calls)
    // Unmeasured rounds first, so the rounds measured see the guard's code once the JIT has it.
    const warmupRounds = 10
    const rounds = 50
    // Per-call time of each round, in µs.
    const authorizeTimes: number[] = []
    const baselineTimes: number[] = []
    for (let roundIndex = -warmupRounds; roundIndex < rounds; roundIndex += 1) {
      const guard = createPlanGuard(echoPlan, { compiler })
      const start = performance.now()
      for (const call of calls) {
        const decision = await guard.authorize({ tool: 'echo', args: call.args })
        if (!decision.allowed) throw new Error(decision.issue.message)
      }
      const authorizeTime = ((performance.now() - start) * 1000) / STEPS
      const baselineStart = performance.now()
      for (const call of calls) await Promise.resolve(call.args)
      if (roundIndex < 0) continue
      authorizeTimes.push(authorizeTime)
      baselineTimes.push(((performance.now() - baselineStart) * 1000) / STEPS)
    }
    const authorize = spreadOf(authorizeTimes)
    const baseline = spreadOf(baselineTimes)
    rows.push({
      suite: 'guard',
      case: 'authorize per call (no path or command arguments, 1,000 ready steps; 50 rounds after 10 unmeasured)',
      ...spreadFields(authorize, baseline, false),
      unit: 'µs',
      baseline: 'awaiting a resolved promise per call',
      target: '≤ 2 µs',
    })
  } finally {
    await rm(root, { recursive: true, force: true })
  }
  return rows
}
