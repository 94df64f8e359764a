import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { PlanError } from '@plan/shell/common'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { CompiledPlan } from '../types/compiled-plan.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import type { AuthorizeResult, PlanGuardState } from '../types/plan-guard.js'
import {
  createTestCompiler,
  createTestWorkspace,
  type TestWorkspace,
} from './__fixtures__/test-workspace.js'
import { createPlanGuard } from './create-plan-guard.js'

function codeOf(result: AuthorizeResult): string {
  return result.allowed ? 'allowed' : result.issue.code
}

describe('createPlanGuard', () => {
  let workspace: TestWorkspace
  let compiler: PlanCompiler

  beforeEach(async () => {
    workspace = await createTestWorkspace({ files: {} })
    compiler = await createTestCompiler(workspace.root)
    await mkdir(join(workspace.root, 'src'))
    await writeFile(join(workspace.root, 'src', 'a.txt'), 'a')
  })

  afterEach(async () => {
    await workspace.remove()
  })

  const chain = () => [
    { id: 'a', tool: 'echo', args: { text: 'one', n: 1 } },
    { id: 'b', tool: 'echo', args: { text: 'two' }, depends_on: ['a'] },
  ]

  it('should allow a call that matches a ready step, whatever the key order', async () => {
    const guard = createPlanGuard(compiler.compile(chain()), { compiler })
    const result = await guard.authorize({ tool: 'echo', args: { n: 1, text: 'one' } })
    expect(result).toEqual({ allowed: true, stepId: 'a', args: { n: 1, text: 'one' } })
    expect(guard.readySteps()).toEqual([])
    guard.complete('a', 'ok')
    expect(guard.readySteps().map((step) => step.id)).toEqual(['b'])
    expect(guard.readyTools()).toEqual(['echo'])
  })

  it('should deny a call of a tool that is not in the plan (call_not_in_plan)', async () => {
    const guard = createPlanGuard(compiler.compile(chain()), { compiler })
    const result = await guard.authorize({ tool: 'write_file', args: { file: 'x', content: '' } })
    expect(codeOf(result)).toBe('call_not_in_plan')
  })

  it('should deny every call before a plan is approved (call_not_in_plan)', async () => {
    const guard = createPlanGuard(undefined, { compiler })
    expect(codeOf(await guard.authorize({ tool: 'echo', args: { text: 'one' } }))).toBe(
      'call_not_in_plan',
    )
  })

  it('should deny a step whose dependencies have not finished (step_not_ready)', async () => {
    const guard = createPlanGuard(compiler.compile(chain()), { compiler })
    const result = await guard.authorize({ tool: 'echo', args: { text: 'two' } })
    expect(codeOf(result)).toBe('step_not_ready')
    if (!result.allowed) expect(result.issue.stepId).toBe('b')
  })

  it('should deny a second run of a finished step (step_already_done)', async () => {
    const guard = createPlanGuard(compiler.compile(chain()), { compiler })
    const first = await guard.authorize({ tool: 'echo', args: { text: 'one', n: 1 } })
    expect(first.allowed).toBe(true)
    guard.complete('a', null)
    expect(codeOf(await guard.authorize({ tool: 'echo', args: { text: 'one', n: 1 } }))).toBe(
      'step_already_done',
    )
    expect(
      codeOf(await guard.authorize({ tool: 'echo', args: { text: 'one', n: 1 }, stepId: 'a' })),
    ).toBe('step_already_done')
  })

  it('should deny a call of a step that is running (step_in_progress)', async () => {
    const guard = createPlanGuard(compiler.compile(chain()), { compiler })
    const [first, second] = await Promise.all([
      guard.authorize({ tool: 'echo', args: { text: 'one', n: 1 } }),
      guard.authorize({ tool: 'echo', args: { text: 'one', n: 1 } }),
    ])
    expect(codeOf(first as AuthorizeResult)).toBe('allowed')
    expect(codeOf(second as AuthorizeResult)).toBe('step_in_progress')
  })

  it('should deny changed arguments and show the planned ones (arguments_differ)', async () => {
    const guard = createPlanGuard(compiler.compile(chain()), { compiler })
    const result = await guard.authorize({ tool: 'echo', args: { text: 'ONE', n: 1 } })
    expect(codeOf(result)).toBe('arguments_differ')
    if (!result.allowed) expect(result.issue.hint).toContain('{"n":1,"text":"one"}')
  })

  it('should deny calls past the run budget of total calls (budget_exhausted) and stop the run', async () => {
    compiler = await createTestCompiler(workspace.root, { budgets: { maxCalls: 1 } })
    const plan = [
      { id: 'a', tool: 'echo', args: { text: 'one' } },
      { id: 'b', tool: 'echo', args: { text: 'two' } },
    ]
    const guard = createPlanGuard(compiler.compile(plan), { compiler })
    expect(codeOf(await guard.authorize({ tool: 'echo', args: { text: 'one' } }))).toBe('allowed')
    expect(codeOf(await guard.authorize({ tool: 'echo', args: { text: 'two' } }))).toBe(
      'budget_exhausted',
    )
    expect(guard.stopReason()?.code).toBe('budget_exhausted')
  })

  it('should deny calls past a tool budget (budget_exhausted) without stopping the run', async () => {
    compiler = await createTestCompiler(workspace.root, {
      tools: { echo: { args: { text: { type: 'string' } }, maxCalls: 2 }, produce: { args: {} } },
    })
    const guard = createPlanGuard(
      compiler.compile([
        { id: 'a', tool: 'echo', args: { text: 'one' } },
        { id: 'b', tool: 'echo', args: { text: 'two' } },
        { id: 'c', tool: 'produce' },
      ]),
      { compiler },
    )
    expect(codeOf(await guard.authorize({ tool: 'echo', args: { text: 'one' } }))).toBe('allowed')
    expect(codeOf(await guard.authorize({ tool: 'echo', args: { text: 'two' } }))).toBe('allowed')
    guard.submitPlan(
      [
        { id: 'd', tool: 'echo', args: { text: 'three' } },
        { id: 'e', tool: 'produce' },
      ],
      'replan',
    )
    expect(codeOf(await guard.authorize({ tool: 'echo', args: { text: 'three' } }))).toBe(
      'budget_exhausted',
    )
    expect(guard.stopReason()).toBeUndefined()
    expect(codeOf(await guard.authorize({ tool: 'produce', args: {} }))).toBe('allowed')
  })

  it('should deny the same call past maxIdenticalCalls (repeated_call)', async () => {
    compiler = await createTestCompiler(workspace.root, { budgets: { maxIdenticalCalls: 2 } })
    const plan = ['a', 'b', 'c'].map((id) => ({ id, tool: 'echo', args: { text: 'same' } }))
    const guard = createPlanGuard(compiler.compile(plan), { compiler })
    expect(codeOf(await guard.authorize({ tool: 'echo', args: { text: 'same' } }))).toBe('allowed')
    expect(codeOf(await guard.authorize({ tool: 'echo', args: { text: 'same' } }))).toBe('allowed')
    expect(codeOf(await guard.authorize({ tool: 'echo', args: { text: 'same' } }))).toBe(
      'repeated_call',
    )
  })

  it('should deny every call after the deadline (deadline_exceeded)', async () => {
    compiler = await createTestCompiler(workspace.root, { budgets: { deadlineMs: 1000 } })
    let clock = 5000
    const guard = createPlanGuard(compiler.compile(chain()), { compiler, now: () => clock })
    clock = 6000
    expect(codeOf(await guard.authorize({ tool: 'echo', args: { text: 'one', n: 1 } }))).toBe(
      'deadline_exceeded',
    )
    expect(guard.stopReason()?.code).toBe('deadline_exceeded')
  })

  it('should stop a re-plan that repeats an earlier plan (replan_loop)', () => {
    const guard = createPlanGuard(compiler.compile(chain()), { compiler })
    const other = [{ id: 'c', tool: 'echo', args: { text: 'three' } }]
    expect(guard.submitPlan(other, 'replan').success).toBe(true)
    const again = guard.submitPlan(chain(), 'replan')
    expect(again.success).toBe(false)
    if (!again.success) expect(again.issues[0]?.code).toBe('replan_loop')
    expect(guard.stopReason()?.code).toBe('replan_loop')
  })

  it('should stop after more than maxReplans re-plans (replan_loop)', async () => {
    compiler = await createTestCompiler(workspace.root, { budgets: { maxReplans: 2 } })
    const guard = createPlanGuard(compiler.compile(chain()), { compiler })
    expect(
      guard.submitPlan([{ id: 'x', tool: 'echo', args: { text: '1' } }], 'replan').success,
    ).toBe(true)
    expect(
      guard.submitPlan([{ id: 'x', tool: 'echo', args: { text: '2' } }], 'replan').success,
    ).toBe(true)
    const third = guard.submitPlan([{ id: 'x', tool: 'echo', args: { text: '3' } }], 'replan')
    expect(third.success).toBe(false)
    if (!third.success) expect(third.issues[0]?.code).toBe('replan_loop')
    expect(codeOf(await guard.authorize({ tool: 'echo', args: { text: '2' } }))).toBe('replan_loop')
  })

  it('should keep finished steps of a re-plan that plans them again', async () => {
    const guard = createPlanGuard(compiler.compile(chain()), { compiler })
    await guard.authorize({ tool: 'echo', args: { text: 'one', n: 1 } })
    guard.complete('a', 'first')
    expect(
      guard.submitPlan(
        [...chain(), { id: 'c', tool: 'echo', args: { text: 'three' }, depends_on: ['b'] }],
        'replan',
      ).success,
    ).toBe(true)
    expect(guard.readySteps().map((step) => step.id)).toEqual(['b'])
  })

  it('should re-check resolved references with the policy (a path from an output)', async () => {
    const plan = [
      { id: 'find', tool: 'produce' },
      { id: 'read', tool: 'view_file', args: { file: { $ref: 'find.output.path' } } },
    ]
    const guard = createPlanGuard(compiler.compile(plan), { compiler })
    expect((await guard.authorize({ tool: 'produce', args: {} })).allowed).toBe(true)
    guard.complete('find', { path: '../outside/x' })
    const result = await guard.authorize({ tool: 'view_file', args: { file: '../outside/x' } })
    expect(codeOf(result)).toBe('path_outside_workspace')
    expect(guard.resolveArgs('read')).toEqual({ success: true, args: { file: '../outside/x' } })
  })

  it('should resolve references and hand the tool the real path', async () => {
    const plan = [
      { id: 'find', tool: 'produce' },
      { id: 'read', tool: 'view_file', args: { file: { $ref: 'find.output.files.0' } } },
    ]
    const guard = createPlanGuard(compiler.compile(plan), { compiler })
    await guard.authorize({ tool: 'produce', args: {} })
    guard.complete('find', { files: ['src/a.txt'] })
    const result = await guard.authorize({ tool: 'view_file', args: { file: 'src/a.txt' } })
    expect(result).toEqual({
      allowed: true,
      stepId: 'read',
      args: { file: join(workspace.root, 'src', 'a.txt') },
    })
  })

  it('should deny a reference to a field the output does not have (invalid_reference)', async () => {
    const plan = [
      { id: 'find', tool: 'produce' },
      { id: 'read', tool: 'view_file', args: { file: { $ref: 'find.output.path' } } },
    ]
    const guard = createPlanGuard(compiler.compile(plan), { compiler })
    await guard.authorize({ tool: 'produce', args: {} })
    guard.complete('find', { other: 1 })
    expect(
      codeOf(await guard.authorize({ tool: 'view_file', args: { file: 'x' }, stepId: 'read' })),
    ).toBe('invalid_reference')
  })

  it('should deny a symlink inside the workspace that points at /etc, made after compile time', async () => {
    const guard = createPlanGuard(
      compiler.compile([{ id: 'r', tool: 'view_file', args: { file: 'etc/passwd' } }]),
      { compiler },
    )
    await symlink('/etc', join(workspace.root, 'etc'))
    const result = await guard.authorize({ tool: 'view_file', args: { file: 'etc/passwd' } })
    expect(codeOf(result)).toBe('path_outside_workspace')
    if (!result.allowed) expect(result.issue.path).toEqual(['file'])
    // A denial on disk leaves the step ready: fixing the workspace lets the same call through.
    expect(guard.readySteps().map((step) => step.id)).toEqual(['r'])
  })

  it('should deny a dangling link that points outside', async () => {
    const guard = createPlanGuard(
      compiler.compile([{ id: 'w', tool: 'write_file', args: { file: 'out.txt', content: 'x' } }]),
      { compiler },
    )
    await symlink(join(workspace.outside, 'planted.txt'), join(workspace.root, 'out.txt'))
    expect(
      codeOf(
        await guard.authorize({ tool: 'write_file', args: { file: 'out.txt', content: 'x' } }),
      ),
    ).toBe('path_outside_workspace')
  })

  it('should deny link/../x when the link leads out', async () => {
    await mkdir(join(workspace.outside, 'sub'))
    await symlink(join(workspace.outside, 'sub'), join(workspace.root, 'link'))
    const guard = createPlanGuard(
      compiler.compile([{ id: 'r', tool: 'view_file', args: { file: 'link/../x' } }]),
      { compiler },
    )
    expect(codeOf(await guard.authorize({ tool: 'view_file', args: { file: 'link/../x' } }))).toBe(
      'path_outside_workspace',
    )
  })

  it('should allow a file created after compile time inside the workspace', async () => {
    const guard = createPlanGuard(
      compiler.compile([{ id: 'r', tool: 'view_file', args: { file: 'later/new.txt' } }]),
      { compiler },
    )
    await mkdir(join(workspace.root, 'later'))
    await writeFile(join(workspace.root, 'later', 'new.txt'), 'new')
    const result = await guard.authorize({ tool: 'view_file', args: { file: 'later/new.txt' } })
    expect(result).toEqual({
      allowed: true,
      stepId: 'r',
      args: { file: join(workspace.root, 'later', 'new.txt') },
    })
  })

  it('should never let parallel calls together exceed a budget', async () => {
    compiler = await createTestCompiler(workspace.root, { budgets: { maxCalls: 5 } })
    const plan = Array.from({ length: 20 }, (_, index) => ({
      id: `s${index}`,
      tool: 'view_file',
      args: { file: `src/f${index}.txt` },
    }))
    const guard = createPlanGuard(compiler.compile(plan), { compiler })
    const results = await Promise.all(
      plan.map((step) => guard.authorize({ tool: 'view_file', args: step.args })),
    )
    expect(results.filter((result) => result.allowed)).toHaveLength(5)
    expect(
      results
        .filter((result) => !result.allowed)
        .every((result) => codeOf(result) === 'budget_exhausted'),
    ).toBe(true)
    expect(guard.snapshot().calls).toBe(5)
  })

  it('should run one step at most once when the same call races', async () => {
    const guard = createPlanGuard(
      compiler.compile([{ id: 'r', tool: 'view_file', args: { file: 'src/a.txt' } }]),
      { compiler },
    )
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        guard.authorize({ tool: 'view_file', args: { file: 'src/a.txt' } }),
      ),
    )
    expect(results.filter((result) => result.allowed)).toHaveLength(1)
  })

  it('should serialize mid-run and resume in a new guard after a JSON round trip', async () => {
    const plan = [
      { id: 'a', tool: 'produce' },
      { id: 'b', tool: 'echo', args: { text: { $ref: 'a.output.text' } } },
      { id: 'c', tool: 'echo', args: { text: 'last' }, depends_on: ['b'] },
    ]
    const guard = createPlanGuard(compiler.compile(plan), { compiler })
    await guard.authorize({ tool: 'produce', args: {} })
    guard.complete('a', { text: 'from a' })
    const state = JSON.parse(JSON.stringify(guard.snapshot())) as PlanGuardState
    const resumed = createPlanGuard(undefined, { compiler, state })
    expect(resumed.plan?.hash).toBe(guard.plan?.hash)
    expect(resumed.readySteps().map((step) => step.id)).toEqual(['b'])
    expect(codeOf(await resumed.authorize({ tool: 'produce', args: {} }))).toBe('step_already_done')
    expect(codeOf(await resumed.authorize({ tool: 'echo', args: { text: 'from a' } }))).toBe(
      'allowed',
    )
    resumed.complete('b', 'ok')
    expect(codeOf(await resumed.authorize({ tool: 'echo', args: { text: 'last' } }))).toBe(
      'allowed',
    )
    resumed.complete('c', 'ok')
    expect(resumed.isComplete()).toBe(true)
    expect(resumed.snapshot().calls).toBe(3)
  })

  it('should refuse a restored plan edited within the policy but keeping its old hash', async () => {
    const original = compiler.compile(chain())
    const guard = createPlanGuard(original, { compiler })
    const state = JSON.parse(JSON.stringify(guard.snapshot())) as {
      plan: { steps: { args: Record<string, unknown> }[] }
    }
    // Still allowed by the policy, so only the hash can tell.
    ;(state.plan.steps[1] as { args: Record<string, unknown> }).args = { text: 'edited' }
    const tampered = state as unknown as PlanGuardState
    expect(() => createPlanGuard(undefined, { compiler, state: tampered })).toThrow(PlanError)
    expect(() => createPlanGuard(original, { compiler, state: tampered })).toThrow(PlanError)
    const faithful = JSON.parse(JSON.stringify(guard.snapshot())) as PlanGuardState
    expect(createPlanGuard(undefined, { compiler, state: faithful }).plan?.hash).toBe(original.hash)
  })

  it('should refuse a restored state whose plan was edited', async () => {
    const guard = createPlanGuard(compiler.compile(chain()), { compiler })
    const state = JSON.parse(JSON.stringify(guard.snapshot())) as {
      plan: { steps: { args: unknown; tool: string }[] }
    }
    const step = state.plan.steps[0] as { args: unknown; tool: string }
    step.tool = 'view_file'
    step.args = { file: '/etc/passwd' }
    expect(() =>
      createPlanGuard(undefined, { compiler, state: state as unknown as PlanGuardState }),
    ).toThrow(PlanError)
    expect(() =>
      createPlanGuard(undefined, { compiler, state: { version: 2 } as unknown as PlanGuardState }),
    ).toThrow(PlanError)
  })

  it('should refuse a compiled plan that the compiler does not approve', () => {
    const compiled = compiler.compile(chain())
    const forged: CompiledPlan = {
      ...compiled,
      steps: compiled.steps.map((step) =>
        step.id === 'a' ? { ...step, tool: 'view_file', args: { file: '/etc/passwd' } } : step,
      ),
    }
    expect(() => createPlanGuard(forged, { compiler })).toThrow(PlanError)
  })

  it('should skip the dependents of a failed step and then be complete', async () => {
    const guard = createPlanGuard(compiler.compile(chain()), { compiler })
    await guard.authorize({ tool: 'echo', args: { text: 'one', n: 1 } })
    guard.fail('a', new Error('boom'))
    expect(guard.snapshot().status).toMatchObject({ a: 'failed', b: 'skipped' })
    expect(guard.isComplete()).toBe(true)
    expect(codeOf(await guard.authorize({ tool: 'echo', args: { text: 'two' } }))).toBe(
      'step_not_ready',
    )
  })

  it('should let a released step be authorized again, counting both calls', async () => {
    const guard = createPlanGuard(compiler.compile(chain()), { compiler })
    await guard.authorize({ tool: 'echo', args: { text: 'one', n: 1 } })
    guard.release('a')
    expect(codeOf(await guard.authorize({ tool: 'echo', args: { text: 'one', n: 1 } }))).toBe(
      'allowed',
    )
    expect(guard.snapshot().calls).toBe(2)
  })

  it('should select a step by tool-call id in per-turn mode and keep earlier outputs', async () => {
    const guard = createPlanGuard(undefined, { compiler })
    const turn = [
      { id: 'call_1', tool: 'echo', args: { text: 'same' } },
      { id: 'call_2', tool: 'echo', args: { text: 'same' } },
    ]
    expect(guard.submitPlan(turn, 'turn').success).toBe(true)
    const second = await guard.authorize({ tool: 'echo', args: { text: 'same' }, callId: 'call_2' })
    expect(second).toMatchObject({ allowed: true, stepId: 'call_2' })
    guard.complete('call_2', 'two')
    const first = await guard.authorize({ tool: 'echo', args: { text: 'same' }, callId: 'call_1' })
    expect(first).toMatchObject({ allowed: true, stepId: 'call_1' })
    guard.complete('call_1', 'one')
    expect(guard.submitPlan([{ id: 'call_3', tool: 'produce' }], 'turn').success).toBe(true)
    expect(guard.snapshot().outputs).toMatchObject({ call_1: 'one', call_2: 'two' })
    expect(codeOf(await guard.authorize({ tool: 'produce', args: {}, callId: 'call_1' }))).toBe(
      'allowed',
    )
  })

  it('should stop a run whose model repeats the same turn past maxIdenticalCalls', async () => {
    compiler = await createTestCompiler(workspace.root, {
      budgets: { maxIdenticalCalls: 2, maxReplans: 0 },
    })
    const guard = createPlanGuard(undefined, { compiler })
    expect(
      guard.submitPlan([{ id: 't1', tool: 'echo', args: { text: 'x' } }], 'turn').success,
    ).toBe(true)
    expect(
      guard.submitPlan([{ id: 't2', tool: 'echo', args: { text: 'x' } }], 'turn').success,
    ).toBe(true)
    const third = guard.submitPlan([{ id: 't3', tool: 'echo', args: { text: 'x' } }], 'turn')
    expect(third.success).toBe(false)
    if (!third.success) expect(third.issues[0]?.code).toBe('repeated_call')
    expect(guard.stopReason()?.code).toBe('repeated_call')
  })

  it('should stop a run whose model repeats the same denied call past maxIdenticalCalls', async () => {
    compiler = await createTestCompiler(workspace.root, { budgets: { maxIdenticalCalls: 2 } })
    const guard = createPlanGuard(compiler.compile(chain()), { compiler })
    const offPlan = { tool: 'write_file', args: { file: 'x', content: '' } }
    expect(codeOf(await guard.authorize(offPlan))).toBe('call_not_in_plan')
    expect(codeOf(await guard.authorize(offPlan))).toBe('call_not_in_plan')
    const third = await guard.authorize(offPlan)
    expect(third.allowed).toBe(false)
    if (!third.allowed)
      expect(third.issues.map((issue) => issue.code)).toEqual(['call_not_in_plan', 'repeated_call'])
    expect(guard.stopReason()?.code).toBe('repeated_call')
    expect(codeOf(await guard.authorize({ tool: 'echo', args: { text: 'one', n: 1 } }))).toBe(
      'repeated_call',
    )
  })

  it('should stop a run after more than maxDenials denied calls, even when each is different', async () => {
    compiler = await createTestCompiler(workspace.root, { budgets: { maxDenials: 3 } })
    const guard = createPlanGuard(compiler.compile(chain()), { compiler })
    for (let index = 0; index < 3; index += 1) {
      expect(
        codeOf(await guard.authorize({ tool: 'echo', args: { text: `other ${index}` } })),
      ).toBe('arguments_differ')
    }
    const fourth = await guard.authorize({ tool: 'echo', args: { text: 'other 4' } })
    if (!fourth.allowed) expect(fourth.issues.at(-1)?.code).toBe('budget_exhausted')
    expect(guard.stopReason()?.code).toBe('budget_exhausted')
  })

  it('should stop a run whose model repeats a rejected turn, and keep the count across a snapshot', async () => {
    compiler = await createTestCompiler(workspace.root, { budgets: { maxIdenticalCalls: 2 } })
    const first = createPlanGuard(undefined, { compiler })
    const rejected = (id: string) => [{ id, tool: 'echo', args: { text: 'x', extra: true } }]
    expect(first.submitPlan(rejected('t1'), 'turn').success).toBe(false)
    expect(first.submitPlan(rejected('t2'), 'turn').success).toBe(false)
    const state = JSON.parse(JSON.stringify(first.snapshot())) as PlanGuardState
    expect(state.denials).toBe(2)
    const resumed = createPlanGuard(undefined, { compiler, state })
    const third = resumed.submitPlan(rejected('t3'), 'turn')
    expect(third.success).toBe(false)
    if (!third.success) expect(third.issues.at(-1)?.code).toBe('repeated_call')
    expect(resumed.stopReason()?.code).toBe('repeated_call')
  })

  it('should report checkArguments issues for a resolved value of the wrong type', async () => {
    const plan = [
      { id: 'a', tool: 'produce' },
      { id: 'b', tool: 'echo', args: { text: { $ref: 'a' } } },
    ]
    const guard = createPlanGuard(compiler.compile(plan), { compiler })
    await guard.authorize({ tool: 'produce', args: {} })
    guard.complete('a', { not: 'a string' })
    expect(
      codeOf(await guard.authorize({ tool: 'echo', args: { text: { not: 'a string' } } })),
    ).toBe('invalid_arguments')
  })

  it('should never throw for hostile input', async () => {
    const guard = createPlanGuard(compiler.compile(chain()), { compiler })
    const cyclic: Record<string, unknown> = { text: 'one' }
    cyclic.self = cyclic
    const getter = Object.defineProperty({}, 'text', { get: () => 'one', enumerable: true })
    for (const call of [
      null,
      {},
      { tool: 42 },
      { tool: 'echo', args: cyclic },
      { tool: 'echo', args: getter },
      { tool: 'echo', args: [1] },
      { tool: 'echo', args: 'text' },
    ]) {
      const result = await guard.authorize(call as never)
      expect(result.allowed).toBe(false)
    }
    expect(() => guard.complete('nope', 1)).not.toThrow()
    expect(() => guard.complete('a', 1n)).not.toThrow()
  })

  it('should handle step ids that look like prototype keys', async () => {
    const plan = [
      { id: '__proto__', tool: 'produce' },
      { id: 'constructor', tool: 'echo', args: { text: { $ref: '__proto__.output.t' } } },
    ]
    const guard = createPlanGuard(compiler.compile(plan), { compiler })
    await guard.authorize({ tool: 'produce', args: {} })
    guard.complete('__proto__', { t: 'x' })
    const state = JSON.parse(JSON.stringify(guard.snapshot())) as PlanGuardState
    const resumed = createPlanGuard(undefined, { compiler, state })
    expect(codeOf(await resumed.authorize({ tool: 'echo', args: { text: 'x' } }))).toBe('allowed')
    expect(({} as Record<string, unknown>).t).toBeUndefined()
  })
})
