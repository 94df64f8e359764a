import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { PlanCompiler } from '../types/plan-compiler.js'
import type { PlanGuard, PlanGuardState } from '../types/plan-guard.js'
import {
  createTestCompiler,
  createTestWorkspace,
  type TestWorkspace,
} from './__fixtures__/test-workspace.js'
import { createPlanGuard } from './create-plan-guard.js'

const plan = [
  { id: 'a', tool: 'echo', args: { text: 'one' } },
  { id: 'b', tool: 'produce', args: { n: 2 }, depends_on: ['a'] },
  { id: 'c', tool: 'echo', args: { text: 'three' } },
]

const callA = { tool: 'echo', args: { text: 'one' }, callId: 'c1' }
const callB = { tool: 'produce', args: { n: 2 }, callId: 'c2' }
const callC = { tool: 'echo', args: { text: 'three' }, callId: 'c3' }

/** The guard restored from its state after a trip through JSON, as another process would. */
function restored(guard: PlanGuard, compiler: PlanCompiler): PlanGuard {
  const state = JSON.parse(JSON.stringify(guard.snapshot())) as PlanGuardState
  return createPlanGuard(undefined, { compiler, state })
}

describe('release with pausedCallId', () => {
  let workspace: TestWorkspace
  let compiler: PlanCompiler

  beforeEach(async () => {
    workspace = await createTestWorkspace()
    compiler = await createTestCompiler(workspace.root, {
      budgets: { maxCalls: 2, maxIdenticalCalls: 1 },
    })
  })

  afterEach(async () => {
    await workspace.cleanup()
  })

  it('should not count again the call that resumes a paused call', async () => {
    const guard = createPlanGuard(compiler.compile(plan), { compiler })
    expect(await guard.authorize(callA)).toMatchObject({ allowed: true, stepId: 'a' })
    guard.release('a', { pausedCallId: 'c1' })
    expect(guard.snapshot().paused).toEqual({ a: 'c1' })
    const resumed = await guard.authorize(callA)
    expect(resumed).toEqual({ allowed: true, stepId: 'a', args: { text: 'one' }, resumed: true })
    expect(guard.snapshot()).toMatchObject({ calls: 1, callsPerTool: { echo: 1 } })
    expect(guard.snapshot().paused).toBeUndefined()
    guard.complete('a', 'one')
    expect(await guard.authorize(callB)).toEqual({ allowed: true, stepId: 'b', args: { n: 2 } })
    expect(guard.snapshot().calls).toBe(2)
  })

  it('should count a call of the paused step under another call id, or none', async () => {
    for (const other of [
      { ...callA, callId: 'c9' },
      { tool: callA.tool, args: callA.args },
    ]) {
      const guard = createPlanGuard(compiler.compile(plan), {
        compiler: await createTestCompiler(workspace.root),
      })
      await guard.authorize(callA)
      guard.release('a', { pausedCallId: 'c1' })
      expect(await guard.authorize(other)).toEqual({
        allowed: true,
        stepId: 'a',
        args: { text: 'one' },
      })
      expect(guard.snapshot().calls).toBe(2)
    }
  })

  it('should refuse a resume that is not the paused call, as any call, and keep the pause', async () => {
    const guard = createPlanGuard(compiler.compile(plan), { compiler })
    await guard.authorize(callA)
    guard.release('a', { pausedCallId: 'c1' })
    const changed = await guard.authorize({ ...callA, args: { text: 'two' } })
    expect(changed.allowed ? 'allowed' : changed.issue.code).toBe('arguments_differ')
    expect(await guard.authorize(callA)).toMatchObject({ allowed: true, resumed: true })
    expect(guard.snapshot().calls).toBe(1)
  })

  it('should resume the paused step when another ready step takes the same call', async () => {
    const twice = [plan[0], { id: 'again', tool: 'echo', args: { text: 'one' } }]
    const repeating = await createTestCompiler(workspace.root)
    const guard = createPlanGuard(repeating.compile(twice), { compiler: repeating })
    expect(await guard.authorize(callA)).toMatchObject({ allowed: true, stepId: 'a' })
    guard.release('a', { pausedCallId: 'c1' })
    expect(await guard.authorize(callA)).toMatchObject({ stepId: 'a', resumed: true })
    expect(await guard.authorize({ ...callA, callId: 'c2' })).toMatchObject({ stepId: 'again' })
    expect(guard.snapshot().calls).toBe(2)
  })

  it('should keep a paused call in the snapshot, and resume it in a restored guard', async () => {
    const guard = createPlanGuard(compiler.compile(plan), { compiler })
    expect('paused' in guard.snapshot()).toBe(false)
    await guard.authorize(callA)
    guard.release('a', { pausedCallId: 'c1' })
    const other = restored(guard, compiler)
    expect(await other.authorize(callA)).toMatchObject({ allowed: true, resumed: true })
    expect(other.snapshot().calls).toBe(1)
  })

  it('should drop a paused call whose step failed, or that a restored state holds for a step that is not ready', async () => {
    const guard = createPlanGuard(compiler.compile(plan), { compiler })
    await guard.authorize(callA)
    guard.release('a', { pausedCallId: 'c1' })
    guard.fail('a', new Error('gave up'))
    expect(guard.snapshot().paused).toBeUndefined()
    const state = {
      ...(JSON.parse(JSON.stringify(guard.snapshot())) as PlanGuardState),
      paused: { a: 'c1', b: 'c2', nope: 'c4' },
    }
    expect(createPlanGuard(undefined, { compiler, state }).snapshot().paused).toBeUndefined()
  })

  it('should count a call paused any number of times, in any process, once (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }), async (moves) => {
        // maxCalls 2: the paused call and one more fit, and nothing else.
        let guard = createPlanGuard(compiler.compile(plan), { compiler })
        const first = await guard.authorize(callA)
        if (!first.allowed || first.resumed === true) return false
        for (const restore of moves) {
          guard.release('a', { pausedCallId: 'c1' })
          if (restore) guard = restored(guard, compiler)
          const again = await guard.authorize(callA)
          if (!again.allowed || again.resumed !== true) return false
        }
        guard.complete('a', 'one')
        const second = await guard.authorize(callB)
        guard.complete('b', 2)
        const extra = await guard.authorize(callC)
        return (
          second.allowed &&
          !extra.allowed &&
          extra.issue.code === 'budget_exhausted' &&
          guard.snapshot().calls === 2 &&
          guard.snapshot().callsPerTool?.echo === 1
        )
      }),
      { numRuns: 40 },
    )
  })
})
