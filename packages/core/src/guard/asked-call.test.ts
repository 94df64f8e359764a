import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { authorizeInterrupted } from '../durable/authorize-interrupted.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import type { PlanGuard, PlanGuardState } from '../types/plan-guard.js'
import {
  createTestCompiler,
  createTestWorkspace,
  type TestWorkspace,
} from './__fixtures__/test-workspace.js'
import { createPlanGuard } from './create-plan-guard.js'

const plan = [{ id: 'a', tool: 'echo', args: { text: 'one' } }]
const call = { tool: 'echo', args: { text: 'one' }, callId: 'c1' }

/** A JSON trip through the guard's state, as another process would restore it. */
function saved(guard: PlanGuard): PlanGuardState {
  return JSON.parse(JSON.stringify(guard.snapshot())) as PlanGuardState
}

/**
 * A per-turn guard whose step `a` started before a crash: its call is an interrupted call
 * (`plan` mode, when asked for).
 */
async function interrupted(compiler: PlanCompiler, mode: 'turn' | 'plan' = 'turn') {
  const guard = createPlanGuard(mode === 'plan' ? compiler.compile(plan) : undefined, { compiler })
  if (mode === 'turn') guard.submitPlan(plan, 'turn')
  expect((await guard.authorize(call)).allowed).toBe(true)
  return createPlanGuard(undefined, { compiler, state: saved(guard) })
}

/** A `retryInterrupted` that pauses the run (as LangGraph's `interrupt()` throws) `pauses` times. */
function pausing(pauses: number) {
  let asked = 0
  return () => {
    asked += 1
    if (asked <= pauses) throw new Error('paused')
    return true
  }
}

describe('asksHuman', () => {
  let workspace: TestWorkspace
  let compiler: PlanCompiler

  beforeEach(async () => {
    workspace = await createTestWorkspace({ files: {} })
    compiler = await createTestCompiler(workspace.root, {
      budgets: { maxDenials: 1 },
    })
  })

  afterEach(async () => {
    await workspace.remove()
  })

  for (const restore of [false, true]) {
    it(`should count a refusal offered to retryInterrupted once, however often the call is replayed${restore ? ', in a restored guard' : ''}`, async () => {
      let guard = await interrupted(compiler)
      const retry = pausing(3)
      for (let replay = 0; replay < 3; replay += 1) {
        await expect(authorizeInterrupted(guard, call, retry)).rejects.toThrow('paused')
        expect(guard.snapshot().denials).toBe(1)
        if (restore) guard = createPlanGuard(undefined, { compiler, state: saved(guard) })
      }
      const result = await authorizeInterrupted(guard, call, retry)
      expect(result.allowed).toBe(true)
      expect(guard.snapshot()).toMatchObject({ denials: 1, calls: 2 })
    })
  }

  it('should count every refusal in plan mode, where one plan lasts many model turns', async () => {
    const guard = await interrupted(compiler, 'plan')
    const first = await guard.authorize({ ...call, asksHuman: true })
    expect(first.allowed).toBe(false)
    // The same call id again (a model may repeat one): counted, so the run stops.
    const again = await guard.authorize({ ...call, asksHuman: true })
    expect(again.allowed ? [] : again.issues.map((issue) => issue.code)).toContain(
      'budget_exhausted',
    )
    expect(guard.snapshot().denials).toBe(2)
    expect('asked' in guard.snapshot()).toBe(false)
  })

  it('should still count every refusal of a call that is not put to a human', async () => {
    const guard = await interrupted(compiler)
    expect((await guard.authorize(call)).allowed).toBe(false)
    const again = await guard.authorize(call)
    expect(again.allowed ? [] : again.issues.map((issue) => issue.code)).toContain(
      'budget_exhausted',
    )
    expect(guard.snapshot().denials).toBe(2)
    expect('asked' in guard.snapshot()).toBe(false)
  })

  it('should count a refusal again for another call id or other arguments', async () => {
    const guard = await interrupted(compiler)
    const first = await guard.authorize({ ...call, asksHuman: true })
    expect(first.allowed).toBe(false)
    expect(guard.snapshot().asked).toEqual({ c1: expect.any(String) })
    const other = await guard.authorize({ ...call, callId: 'c2', asksHuman: true })
    expect(other.allowed ? [] : other.issues.map((issue) => issue.code)).toContain(
      'budget_exhausted',
    )
    expect(guard.snapshot().denials).toBe(2)
  })

  it('should count a refusal that a human may not overrule, even when asked to', async () => {
    const guard = createPlanGuard(compiler.compile(plan), { compiler })
    const unknown = { tool: 'echo', args: { text: 'two' }, callId: 'c1', asksHuman: true }
    expect((await guard.authorize(unknown)).allowed).toBe(false)
    expect((await guard.authorize(unknown)).allowed).toBe(false)
    expect(guard.snapshot().denials).toBe(2)
    expect('asked' in guard.snapshot()).toBe(false)
  })

  it('should forget the refusals asked about when a new plan is installed', async () => {
    const guard = await interrupted(compiler)
    await guard.authorize({ ...call, asksHuman: true })
    expect(guard.snapshot().asked).toBeDefined()
    guard.fail('a', new Error('interrupted'))
    const replan = guard.submitPlan([{ id: 'b', tool: 'echo', args: { text: 'one' } }], 'replan')
    expect(replan.success).toBe(true)
    expect('asked' in guard.snapshot()).toBe(false)
  })
})
