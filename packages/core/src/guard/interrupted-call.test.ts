import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { authorizeInterrupted } from '../durable/authorize-interrupted.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import type { PlanGuardState } from '../types/plan-guard.js'
import {
  createTestCompiler,
  createTestWorkspace,
  type TestWorkspace,
  testTools,
} from './__fixtures__/test-workspace.js'
import { createPlanGuard } from './create-plan-guard.js'

const plan = [
  { id: 'a', tool: 'echo', args: { text: 'one' } },
  { id: 'b', tool: 'produce', args: { n: 2 }, depends_on: ['a'] },
]

/** The state saved after `a` was authorized and before it ended: what a crash leaves. */
async function crashedDuringA(compiler: PlanCompiler): Promise<PlanGuardState> {
  const guard = createPlanGuard(compiler.compile(plan), { compiler })
  const result = await guard.authorize({ tool: 'echo', args: { text: 'one' } })
  expect(result.allowed).toBe(true)
  return JSON.parse(JSON.stringify(guard.snapshot())) as PlanGuardState
}

describe('interruptedCalls', () => {
  let workspace: TestWorkspace

  beforeEach(async () => {
    workspace = await createTestWorkspace({ files: {} })
  })

  afterEach(async () => {
    await workspace.remove()
  })

  it('should report a call that started and never ended, and deny it with interrupted_call', async () => {
    const compiler = await createTestCompiler(workspace.root)
    const resumed = createPlanGuard(undefined, { compiler, state: await crashedDuringA(compiler) })
    expect(resumed.interruptedCalls()).toMatchObject([
      { stepId: 'a', tool: 'echo', issue: { code: 'interrupted_call', stepId: 'a' } },
    ])
    const again = await resumed.authorize({ tool: 'echo', args: { text: 'one' } })
    expect(again.allowed ? 'allowed' : again.issue.code).toBe('interrupted_call')
    const byStep = await resumed.authorize({ tool: 'echo', args: { text: 'one' }, stepId: 'a' })
    expect(byStep.allowed ? 'allowed' : byStep.issue.code).toBe('interrupted_call')
    expect(resumed.snapshot().calls).toBe(1)
  })

  it('should run an interrupted call again once released (a human approved), counting it twice', async () => {
    const compiler = await createTestCompiler(workspace.root)
    const resumed = createPlanGuard(undefined, { compiler, state: await crashedDuringA(compiler) })
    resumed.release('a')
    expect(resumed.interruptedCalls()).toEqual([])
    const again = await resumed.authorize({ tool: 'echo', args: { text: 'one' } })
    expect(again.allowed).toBe(true)
    expect(resumed.snapshot().calls).toBe(2)
  })

  it('should release the interrupted call of an idempotent tool on restore (at-least-once)', async () => {
    const compiler = await createTestCompiler(workspace.root, {
      tools: { ...testTools, echo: { ...testTools.echo, idempotent: true } },
    })
    const resumed = createPlanGuard(undefined, { compiler, state: await crashedDuringA(compiler) })
    expect(resumed.interruptedCalls()).toEqual([])
    expect(resumed.readySteps().map((step) => step.id)).toEqual(['a'])
    expect((await resumed.authorize({ tool: 'echo', args: { text: 'one' } })).allowed).toBe(true)
  })

  it('should keep the interrupted call counted, so a resume never exceeds maxCalls', async () => {
    const compiler = await createTestCompiler(workspace.root, {
      tools: { ...testTools, echo: { ...testTools.echo, idempotent: true } },
      budgets: { maxCalls: 1 },
    })
    const resumed = createPlanGuard(undefined, { compiler, state: await crashedDuringA(compiler) })
    const again = await resumed.authorize({ tool: 'echo', args: { text: 'one' } })
    expect(again.allowed ? 'allowed' : again.issue.code).toBe('budget_exhausted')
  })

  it('should report nothing for a run that was not interrupted', async () => {
    const compiler = await createTestCompiler(workspace.root)
    const guard = createPlanGuard(compiler.compile(plan), { compiler })
    await guard.authorize({ tool: 'echo', args: { text: 'one' } })
    expect(guard.interruptedCalls()).toEqual([])
    const second = await guard.authorize({ tool: 'echo', args: { text: 'one' } })
    expect(second.allowed ? 'allowed' : second.issue.code).toBe('step_in_progress')
  })
})

describe('authorizeInterrupted', () => {
  let workspace: TestWorkspace

  beforeEach(async () => {
    workspace = await createTestWorkspace({ files: {} })
  })

  afterEach(async () => {
    await workspace.remove()
  })

  it('should run an interrupted call again only when retry answers true', async () => {
    const compiler = await createTestCompiler(workspace.root)
    const state = await crashedDuringA(compiler)
    const call = { tool: 'echo', args: { text: 'one' } }
    const asked: string[] = []
    const refused = createPlanGuard(undefined, { compiler, state })
    const denied = await authorizeInterrupted(refused, call, (entry) => {
      asked.push(entry.stepId)
      return false
    })
    expect(denied.allowed ? 'allowed' : denied.issue.code).toBe('interrupted_call')
    const approved = createPlanGuard(undefined, { compiler, state })
    const allowed = await authorizeInterrupted(approved, call, async () => true)
    expect(allowed).toMatchObject({ allowed: true, stepId: 'a' })
    expect(asked).toEqual(['a'])
    expect(approved.snapshot().calls).toBe(2)
  })
})

describe('interruptedCalls in per-turn mode', () => {
  let workspace: TestWorkspace

  beforeEach(async () => {
    workspace = await createTestWorkspace({ files: {} })
  })

  afterEach(async () => {
    await workspace.remove()
  })

  /** A turn whose call started and never ended, restored; the model then asks again with a new id. */
  async function resumedTurn(compiler: PlanCompiler) {
    const first = createPlanGuard(undefined, { compiler })
    first.submitPlan([{ id: 'call_1', tool: 'echo', args: { text: 'one' } }], 'turn')
    expect(
      (await first.authorize({ tool: 'echo', args: { text: 'one' }, stepId: 'call_1' })).allowed,
    ).toBe(true)
    const state = JSON.parse(JSON.stringify(first.snapshot())) as PlanGuardState
    const resumed = createPlanGuard(undefined, { compiler, state })
    const turn = resumed.submitPlan([{ id: 'call_2', tool: 'echo', args: { text: 'one' } }], 'turn')
    expect(turn.success).toBe(true)
    return resumed
  }

  it('should deny the same call under a new step id with interrupted_call', async () => {
    const compiler = await createTestCompiler(workspace.root)
    const resumed = await resumedTurn(compiler)
    const again = await resumed.authorize({ tool: 'echo', args: { text: 'one' }, stepId: 'call_2' })
    expect(again.allowed ? 'allowed' : again.issue).toMatchObject({
      code: 'interrupted_call',
      stepId: 'call_1',
    })
    const other = await resumed.authorize({ tool: 'echo', args: { text: 'two' } })
    expect(other.allowed ? 'allowed' : other.issue.code).not.toBe('interrupted_call')
  })

  it('should close the earlier step and run the new one once retry approves', async () => {
    const compiler = await createTestCompiler(workspace.root)
    const resumed = await resumedTurn(compiler)
    const call = { tool: 'echo', args: { text: 'one' }, stepId: 'call_2' }
    const allowed = await authorizeInterrupted(resumed, call, () => true)
    expect(allowed).toMatchObject({ allowed: true, stepId: 'call_2' })
    expect(resumed.snapshot().status).toMatchObject({ call_1: 'failed', call_2: 'running' })
    expect(resumed.interruptedCalls()).toEqual([])
    expect(resumed.snapshot().calls).toBe(2)
  })
})

describe('readyTools', () => {
  it('should keep the tool of an interrupted call visible, so a repeat is told why', async () => {
    const workspace = await createTestWorkspace({ files: {} })
    try {
      const compiler = await createTestCompiler(workspace.root)
      const resumed = createPlanGuard(undefined, {
        compiler,
        state: await crashedDuringA(compiler),
      })
      expect(resumed.readySteps()).toEqual([])
      expect(resumed.readyTools()).toEqual(['echo'])
      resumed.fail('a', new Error('abandoned'))
      expect(resumed.readyTools()).toEqual([])
    } finally {
      await workspace.remove()
    }
  })
})
