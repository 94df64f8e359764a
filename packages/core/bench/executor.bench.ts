// Executor and guard benchmark. Build first (`pnpm --filter @plan/core build`), then run
// `node bench/executor.bench.ts` from packages/core (Node >= 22.18 strips the types).
//
// 1. Makespan of random 1,000-step DAGs whose tools sleep 10 ms, against the critical-path
//    lower bound (critical path x 10 ms, and the same chain of sleeps measured in this
//    process, which includes the timer's own lateness) and against sequential execution.
// 2. `authorize` cost per call for calls without path or command arguments.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { createPlanCompiler, createPlanGuard, executePlan } from '../dist/index.js'

const STEPS = 1000
const SLEEP_MS = 10
const WINDOW = 40
const SEEDS = [1, 2, 3]

function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let value = Math.imul(state ^ (state >>> 15), 1 | state)
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296
  }
}

/** A random DAG: each step depends on 0 to 3 of the WINDOW steps before it. */
function randomPlan(seed: number) {
  const next = random(seed)
  return Array.from({ length: STEPS }, (_, index) => {
    const deps = new Set<string>()
    const count = index === 0 ? 0 : Math.floor(next() * 4)
    for (let draw = 0; draw < count; draw += 1)
      deps.add(`s${Math.max(0, index - 1 - Math.floor(next() * WINDOW))}`)
    return { id: `s${index}`, tool: 'work', args: { n: index }, depends_on: [...deps] }
  })
}

function print(line = ''): void {
  process.stdout.write(`${line}\n`)
}

/** Prints rows as an aligned text table; the first row is the header. */
function printTable(rows: readonly (readonly string[])[]): void {
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? []
  rows.forEach((row, index) => {
    print(row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | '))
    if (index === 0) print(widths.map((width) => '-'.repeat(width)).join('-|-'))
  })
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds))

async function measuredChain(length: number): Promise<number> {
  const start = performance.now()
  for (let index = 0; index < length; index += 1) await sleep(SLEEP_MS)
  return performance.now() - start
}

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
  const rows: string[][] = [
    [
      'DAG',
      'critical path',
      'bound (cp x 10 ms)',
      'chain measured',
      'executor',
      'vs bound',
      'vs chain',
    ],
  ]
  let sequentialRow: string[] | undefined
  // Warm-up run (JIT), not measured.
  await executePlan(compiler.compile(randomPlan(0)), tools, {
    compiler,
    concurrency: Number.POSITIVE_INFINITY,
  })
  for (const seed of SEEDS) {
    const plan = compiler.compile(randomPlan(seed))
    const cp = plan.criticalPathLength
    const chain = await measuredChain(cp)
    const start = performance.now()
    const result = await executePlan(plan, tools, {
      compiler,
      concurrency: Number.POSITIVE_INFINITY,
    })
    const makespan = performance.now() - start
    if (result.status !== 'completed') throw new Error(`run ended ${result.status}`)
    const bound = cp * SLEEP_MS
    rows.push([
      `seed ${seed}`,
      String(cp),
      `${bound} ms`,
      `${chain.toFixed(0)} ms`,
      `${makespan.toFixed(0)} ms`,
      `${(makespan / bound).toFixed(3)}x`,
      `${(makespan / chain).toFixed(3)}x`,
    ])
    if (seed === SEEDS[0]) {
      const sequentialStart = performance.now()
      await executePlan(plan, tools, { compiler, concurrency: 1 })
      const sequential = performance.now() - sequentialStart
      sequentialRow = [
        `seed ${seed}`,
        `${sequential.toFixed(0)} ms sequential (concurrency 1)`,
        `speed-up ${(sequential / makespan).toFixed(1)}x`,
      ]
    }
  }
  print(`Makespan of ${STEPS}-step random DAGs, tools sleep ${SLEEP_MS} ms, unbounded concurrency`)
  printTable(rows)
  if (sequentialRow !== undefined) print(sequentialRow.join(' | '))
  print()

  // authorize: 1,000 distinct ready calls without path or command arguments.
  const calls = Array.from({ length: STEPS }, (_, index) => ({
    id: `e${index}`,
    tool: 'echo',
    args: { text: `message ${index}` },
  }))
  const echoPlan = compiler.compile(calls)
  const rounds = 20
  let authorizeTime = 0
  let createTime = 0
  for (let round = 0; round < rounds; round += 1) {
    const createStart = performance.now()
    const guard = createPlanGuard(echoPlan, { compiler })
    createTime += performance.now() - createStart
    const start = performance.now()
    for (const call of calls) {
      const decision = await guard.authorize({ tool: 'echo', args: call.args })
      if (!decision.allowed) throw new Error(decision.issue.message)
    }
    authorizeTime += performance.now() - start
  }
  const perCall = (authorizeTime * 1000) / (rounds * STEPS)
  print('authorize cost (no path or command arguments)')
  printTable([
    ['measure', 'value', 'target'],
    ['authorize per call', `${perCall.toFixed(2)} µs`, '<= 5 µs'],
    [
      `createPlanGuard (${STEPS} steps, re-validation)`,
      `${(createTime / rounds).toFixed(2)} ms`,
      '',
    ],
  ])
} finally {
  await rm(root, { recursive: true, force: true })
}
