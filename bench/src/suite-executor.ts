import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { createPlanCompiler, createPlanGuard, executePlan } from '@plan/core'
import { type Row, random, round, roundSpread, spreadOf } from './measure.ts'

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
    const tools = { work: () => sleep(SLEEP_MS) }
    await executePlan(compiler.compile(randomSleepPlan(0)), tools, {
      compiler,
      concurrency: Number.POSITIVE_INFINITY,
    })
    for (const seed of [1, 2, 3]) {
      const plan = compiler.compile(randomSleepPlan(seed))
      const start = performance.now()
      const result = await executePlan(plan, tools, {
        compiler,
        concurrency: Number.POSITIVE_INFINITY,
      })
      const makespan = performance.now() - start
      if (result.status !== 'completed') throw new Error(`run ended ${result.status}`)
      const bound = plan.criticalPathLength * SLEEP_MS
      rows.push({
        suite: 'executor',
        case: `makespan, random DAG seed ${seed} (1,000 steps, critical path ${plan.criticalPathLength}, tools sleep 10 ms)`,
        value: round(makespan),
        unit: 'ms',
        baseline: 'critical-path lower bound (critical path × 10 ms)',
        baselineValue: bound,
        ratio: round(makespan / bound),
        target: '≤ 1.05×',
      })
      if (seed === 1) {
        const sequentialStart = performance.now()
        await executePlan(plan, tools, { compiler, concurrency: 1 })
        const sequential = performance.now() - sequentialStart
        rows.push({
          suite: 'executor',
          case: 'makespan, random DAG seed 1, unbounded concurrency',
          value: round(makespan),
          unit: 'ms',
          baseline: 'the same plan with concurrency 1',
          baselineValue: round(sequential),
          ratio: round(makespan / sequential),
          note: `speed-up ${round(sequential / makespan)}×`,
        })
      }
    }
    const calls = Array.from({ length: STEPS }, (_, index) => ({
      id: `e${index}`,
      tool: 'echo',
      args: { text: `message ${index}` },
    }))
    const echoPlan = compiler.compile(calls)
    const rounds = 20
    // Per-call time of each round, in µs.
    const authorizeTimes: number[] = []
    const baselineTimes: number[] = []
    for (let roundIndex = 0; roundIndex < rounds; roundIndex += 1) {
      const guard = createPlanGuard(echoPlan, { compiler })
      const start = performance.now()
      for (const call of calls) {
        const decision = await guard.authorize({ tool: 'echo', args: call.args })
        if (!decision.allowed) throw new Error(decision.issue.message)
      }
      authorizeTimes.push(((performance.now() - start) * 1000) / STEPS)
      const baselineStart = performance.now()
      for (const call of calls) await Promise.resolve(call.args)
      baselineTimes.push(((performance.now() - baselineStart) * 1000) / STEPS)
    }
    const authorize = spreadOf(authorizeTimes)
    const baseline = spreadOf(baselineTimes)
    rows.push({
      suite: 'guard',
      case: 'authorize per call (no path or command arguments, 1,000 ready steps)',
      value: round(authorize.median),
      valueSpread: roundSpread(authorize),
      unit: 'µs',
      baseline: 'awaiting a resolved promise per call',
      baselineValue: round(baseline.median),
      baselineSpread: roundSpread(baseline),
      ratio: null,
      target: '≤ 2 µs',
    })
  } finally {
    await rm(root, { recursive: true, force: true })
  }
  return rows
}
