import type { PlanIssue } from '@plan/shell/common'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createPlanCompiler } from '../compile/create-plan-compiler.js'
import { BUDGET_COUNTERS } from '../schema/budget-counter-kinds.js'
import type { CompiledPlan } from '../types/compiled-plan.js'
import { countersFromSaved, emptyCounters, savedCounters } from './budget-counters.js'
import { RunBudgets } from './run-budgets.js'

const limits = { maxReplans: 1, maxIdenticalCalls: 2, maxDenials: 3, maxCalls: 3 }

function budgets(clock = { now: 0 }, toolLimit?: number) {
  const stops: PlanIssue[] = []
  const run = new RunBudgets(
    limits as never,
    () => toolLimit,
    () => clock.now,
    (issue) => stops.push(issue),
  )
  return { run, stops }
}

describe('budget counters', () => {
  it('should save every counter of the table and read it back', () => {
    const counters = emptyCounters()
    counters.calls = 2
    counters.callsPerTool.set('echo', 2)
    counters.deniedRepeats.set('__proto__', 1)
    const saved = JSON.parse(JSON.stringify(savedCounters(counters)))
    expect(Object.keys(saved).sort()).toEqual(Object.keys(BUDGET_COUNTERS).sort())
    expect(countersFromSaved(saved)).toEqual(counters)
  })

  it('should start a counter an older saved state lacks from zero', () => {
    const counters = countersFromSaved({ calls: 1, replans: 0 })
    expect(counters.denials).toBe(0)
    expect(counters.turns).toEqual(new Map())
  })
})

describe('RunBudgets', () => {
  it('should refuse calls past maxDenials in a window, without stopping, until it ends', () => {
    const clock = { now: 1_000_000 }
    const stops: PlanIssue[] = []
    const run = new RunBudgets(
      { ...limits, denialWindowSeconds: 60 } as never,
      () => undefined,
      () => clock.now,
      (issue) => stops.push(issue),
    )
    for (let index = 0; index < 3; index += 1) expect(run.countDenial(`d${index}`)).toBeUndefined()
    expect(run.stopReason()).toBeUndefined()
    expect(run.countDenial('d3')?.code).toBe('budget_exhausted')
    clock.now += 59_000
    expect(run.stopReason()?.message).toContain('refused for 1 s more')
    // The next window starts afresh: the session is usable again, and was never stopped.
    clock.now += 1_000
    expect(run.stopReason()).toBeUndefined()
    expect(run.countDenial('d4')).toBeUndefined()
    expect(run.counters.denials).toBe(1)
    expect(stops).toEqual([])
  })

  it('should count repeated denied requests per window, too', () => {
    const clock = { now: 1_000_000 }
    const run = new RunBudgets(
      { ...limits, maxDenials: 50, denialWindowSeconds: 60 } as never,
      () => undefined,
      () => clock.now,
      () => undefined,
    )
    run.countDenial('same')
    run.countDenial('same')
    expect(run.countDenial('same')?.code).toBe('repeated_call')
    clock.now += 60_000
    expect(run.countDenial('same')).toBeUndefined()
    expect(run.stopped).toBeUndefined()
  })

  it('should stop the run past maxDenials without a window', () => {
    const { run, stops } = budgets()
    for (let index = 0; index < 3; index += 1) run.countDenial(`d${index}`)
    expect(run.countDenial('d3')?.code).toBe('budget_exhausted')
    expect(run.stopReason()?.code).toBe('budget_exhausted')
    expect(stops).toHaveLength(1)
  })

  it('should stop the run at maxCalls, once, and tell onStop once', () => {
    const { run, stops } = budgets()
    for (let index = 0; index < 3; index += 1) {
      expect(run.checkCall('echo', `k${index}`, 's')).toBeUndefined()
      run.countCall('echo', `k${index}`)
    }
    expect(run.checkCall('echo', 'k9', 's')?.code).toBe('budget_exhausted')
    expect(run.stopReason()?.code).toBe('budget_exhausted')
    expect(run.checkCall('echo', 'k9', 's')?.code).toBe('budget_exhausted')
    expect(stops).toHaveLength(1)
  })

  it('should refuse a tool past its own limit without stopping the run', () => {
    const { run, stops } = budgets({ now: 0 }, 1)
    run.countCall('echo', 'a')
    expect(run.checkCall('echo', 'b', 's')?.message).toContain('1 allowed calls')
    expect(stops).toEqual([])
  })

  it('should count identical calls only while nothing else happens between them', () => {
    const { run } = budgets()
    run.countCall('echo', 'same')
    run.countCall('echo', 'same')
    expect(run.checkCall('echo', 'same', 's')?.code).toBe('repeated_call')
    run.forgetRepeats()
    expect(run.checkCall('echo', 'same', 's')).toBeUndefined()
  })

  it('should stop the run when the same denial keeps coming back, or too many come', () => {
    const repeated = budgets().run
    expect(repeated.countDenial('x')).toBeUndefined()
    expect(repeated.countDenial('x')).toBeUndefined()
    expect(repeated.countDenial('x')?.code).toBe('repeated_call')
    const many = budgets().run
    for (const key of ['a', 'b', 'c']) expect(many.countDenial(key)).toBeUndefined()
    expect(many.countDenial('d')?.code).toBe('budget_exhausted')
    expect(many.countDenial('e')).toBeUndefined()
    expect(many.counters.denials).toBe(4)
  })

  it('should stop the run past maxReplans and on a plan submitted again', () => {
    const { run } = budgets()
    expect(run.countReplan()).toBeUndefined()
    expect(run.countReplan()?.code).toBe('replan_loop')
    const again = budgets().run
    again.seenPlanHashes.add('h')
    expect(again.checkReplanHash('g')).toBeUndefined()
    expect(again.checkReplanHash('h')?.code).toBe('replan_loop')
  })

  it('should read the hash of a noted plan only when the seen hashes are read, in approval order', () => {
    const { run } = budgets()
    const reads: string[] = []
    const plan = (hash: string) =>
      ({
        get hash() {
          reads.push(hash)
          return hash
        },
      }) as CompiledPlan
    run.seenPlanHashes.add('first')
    run.notePlan(plan('second'))
    run.notePlan(plan('third'))
    expect(reads).toEqual([])
    expect(run.checkReplanHash('third')?.code).toBe('replan_loop')
    expect(reads).toEqual(['second', 'third'])
    expect([...run.seenPlanHashes]).toEqual(['first', 'second', 'third'])
    expect(reads).toEqual(['second', 'third'])
  })

  it('should hash the noted plans once 256 wait, so a long run keeps no more', () => {
    const { run } = budgets()
    let reads = 0
    for (let index = 0; index < 256; index += 1)
      run.notePlan({
        get hash() {
          reads += 1
          return `h${index}`
        },
      } as CompiledPlan)
    expect(reads).toBe(256)
    expect(run.seenPlanHashes.size).toBe(256)
    expect(reads).toBe(256)
  })

  it('should list the hashes of compiled plans as read from the plans, short or long', async () => {
    const compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: ['/srv/repo'] },
      tools: { echo: { args: { text: { type: 'string' } } } },
    })
    const compiled = (steps: { id: string; text: string }[]) => {
      const result = compiler.validate({
        steps: steps.map(({ id, text }) => ({ id, tool: 'echo', args: { text } })),
      })
      if (!result.success) throw new Error(JSON.stringify(result.issues))
      return result.plan
    }
    const step = fc.record({
      id: fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/),
      text: fc.oneof(fc.string({ maxLength: 20 }), fc.string({ minLength: 4100, maxLength: 4200 })),
    })
    const plans = fc.array(
      fc.uniqueArray(step, { minLength: 1, maxLength: 3, selector: (s) => s.id }),
      {
        maxLength: 8,
      },
    )
    await fc.assert(
      fc.asyncProperty(plans, fc.integer({ min: 0, max: 8 }), async (drawn, readAt) => {
        const { run } = budgets()
        const hashes: string[] = []
        drawn.forEach((steps, index) => {
          if (index === readAt) expect(run.planHashesFrom(0)).toEqual([...new Set(hashes)])
          run.notePlan(compiled(steps))
          hashes.push(compiled(steps).hash)
        })
        expect(run.planHashesFrom(0)).toEqual([...new Set(hashes)])
        for (const hash of hashes) expect(run.checkReplanHash(hash)?.code).toBe('replan_loop')
      }),
      { numRuns: 60 },
    )
  })

  it('should list the plan hashes from a position in the order they were added', () => {
    const { run } = budgets()
    const plan = (hash: string) => ({ hash }) as CompiledPlan
    run.seenPlanHashes.add('first')
    run.notePlan(plan('second'))
    run.notePlan(plan('first'))
    expect(run.planHashesFrom(0)).toEqual(['first', 'second'])
    run.notePlan(plan('third'))
    expect(run.planHashesFrom(1)).toEqual(['second', 'third'])
    run.seenPlanHashes.add('restored')
    run.notePlan(plan('fourth'))
    expect(run.planHashesFrom(2)).toEqual(['third', 'restored', 'fourth'])
    expect(run.planHashesFrom(0)).toEqual([...run.seenPlanHashes])
    expect(run.planHashesFrom(5)).toEqual([])
  })

  it('should stop the run when the same turn repeats past maxIdenticalCalls', () => {
    const { run } = budgets()
    expect(run.countTurn('t')).toBeUndefined()
    expect(run.countTurn('t')).toBeUndefined()
    expect(run.countTurn('t')?.code).toBe('repeated_call')
  })

  it('should stop the run once its deadline has passed', () => {
    const clock = { now: 1000 }
    const stops: PlanIssue[] = []
    const run = new RunBudgets(
      { ...limits, deadlineMs: 50 } as never,
      () => undefined,
      () => clock.now,
      (issue) => stops.push(issue),
    )
    expect(run.stopReason()).toBeUndefined()
    clock.now = 1050
    expect(run.stopReason()?.code).toBe('deadline_exceeded')
    expect(stops.map((issue) => issue.code)).toEqual(['deadline_exceeded'])
  })
})
