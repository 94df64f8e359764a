import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  createTestCompiler,
  createTestWorkspace,
  type TestWorkspace,
} from '../guard/__fixtures__/test-workspace.js'
import type { CompiledPlan } from '../types/compiled-plan.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import type { ToolFunction } from '../types/tool-function.js'
import { executePlan } from './execute-plan.js'

const STEPS = 300

/** A random DAG (fixed seed): each step depends on up to 3 of the 20 steps before it. */
function randomPlan(seed: number) {
  let state = seed
  const next = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0
    return state / 2 ** 32
  }
  return Array.from({ length: STEPS }, (_, index) => {
    const deps = new Set<string>()
    const count = index === 0 ? 0 : Math.floor(next() * 4)
    for (let draw = 0; draw < count; draw += 1)
      deps.add(`s${Math.max(0, index - 1 - Math.floor(next() * 20))}`)
    return { id: `s${index}`, tool: 'produce', args: { n: index }, depends_on: [...deps] }
  })
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

interface Trace {
  readonly makespan: number
  /** Steps called later than the virtual time their last dependency ended. */
  readonly late: number
  /** Virtual times at which a slot stayed free while a step was ready. */
  readonly idleSlots: number
}

/**
 * Runs a plan on a virtual clock: a call to step n ends `duration(n)` units after it starts,
 * and the clock moves to the next end only once the executor has nothing left to do now.
 */
async function runOnVirtualClock(
  compiler: PlanCompiler,
  plan: CompiledPlan,
  concurrency: number,
  duration: (n: number) => number,
): Promise<Trace> {
  let now = 0
  let late = 0
  let idleSlots = 0
  const ended = new Map<string, number>()
  const running: { at: number; id: string; resolve: (value: null) => void }[] = []
  const dependsOn = new Map(plan.steps.map((step) => [step.id, step.dependsOn]))
  const produce: ToolFunction = (args) => {
    const id = `s${args.n}`
    const ready = Math.max(0, ...(dependsOn.get(id) ?? []).map((dep) => ended.get(dep) ?? 0))
    if (now > ready) late += 1
    return new Promise((resolve) =>
      running.push({ at: now + duration(Number(args.n)), id, resolve }),
    )
  }
  let done = false
  const run = executePlan(plan, { produce }, { compiler, concurrency, now: () => now }).then(
    (result) => {
      done = true
      return result
    },
  )
  while (!done) {
    for (let round = 0; round < 4; round += 1) await settle()
    if (running.length === 0) continue
    const ready = plan.steps.filter(
      (step) =>
        !ended.has(step.id) &&
        !running.some((call) => call.id === step.id) &&
        step.dependsOn.every((dep) => ended.has(dep)),
    ).length
    if (running.length < concurrency && ready > 0) idleSlots += 1
    now = Math.min(...running.map((call) => call.at))
    for (const call of running.filter((entry) => entry.at === now)) {
      ended.set(call.id, now)
      call.resolve(null)
    }
    running.splice(0, running.length, ...running.filter((entry) => entry.at !== now))
  }
  expect((await run).status).toBe('completed')
  return { makespan: now, late, idleSlots }
}

/** The longest chain of durations through the plan. */
function criticalPath(plan: CompiledPlan, duration: (n: number) => number): number {
  const finish = new Map<string, number>()
  for (const step of plan.steps) {
    const start = Math.max(0, ...step.dependsOn.map((dep) => finish.get(dep) ?? 0))
    finish.set(step.id, start + duration(Number(step.id.slice(1))))
  }
  return Math.max(...finish.values())
}

describe('executePlan (makespan on a virtual clock)', () => {
  let workspace: TestWorkspace
  let compiler: PlanCompiler

  beforeEach(async () => {
    workspace = await createTestWorkspace({ files: {} })
    compiler = await createTestCompiler(workspace.root, {
      budgets: { maxSteps: STEPS, maxFanOut: STEPS },
    })
  })

  afterEach(async () => {
    await workspace.remove()
  })

  it('should start every step as soon as its dependencies end, reaching the critical-path bound', async () => {
    for (const seed of [1, 2, 3]) {
      const plan = compiler.compile(randomPlan(seed))
      const duration = (n: number) => 1 + ((n * 7) % 5)
      const trace = await runOnVirtualClock(compiler, plan, Number.POSITIVE_INFINITY, duration)
      expect(trace.late).toBe(0)
      expect(trace.makespan).toBe(criticalPath(plan, duration))
    }
  }, 60_000)

  it('should keep every slot busy while a step is ready, with a limited concurrency', async () => {
    for (const seed of [1, 2]) {
      const plan = compiler.compile(randomPlan(seed))
      const trace = await runOnVirtualClock(compiler, plan, 4, () => 1)
      expect(trace.idleSlots).toBe(0)
      expect(trace.makespan).toBeGreaterThanOrEqual(Math.ceil(STEPS / 4))
    }
  }, 60_000)
})
