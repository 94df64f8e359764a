import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  createTestCompiler,
  createTestWorkspace,
  type TestWorkspace,
} from '../guard/__fixtures__/test-workspace.js'
import { createPlanGuard } from '../guard/create-plan-guard.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import type { PlanGuardState } from '../types/plan-guard.js'
import type { ToolFunction } from '../types/tool-function.js'
import { type ExecutePlanOptions, executePlan } from './execute-plan.js'
import type { ExecutionEvent } from './execution-event.js'

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds))

describe('executePlan', () => {
  let workspace: TestWorkspace
  let compiler: PlanCompiler

  beforeEach(async () => {
    workspace = await createTestWorkspace({ files: {} })
    compiler = await createTestCompiler(workspace.root)
  })

  afterEach(async () => {
    await workspace.remove()
  })

  const echo: ToolFunction = (args) => ({ text: args.text })

  it('should run a diamond in dependency order and resolve references', async () => {
    const plan = compiler.compile([
      { id: 'a', tool: 'echo', args: { text: 'a' } },
      { id: 'b', tool: 'echo', args: { text: { $ref: 'a.output.text' }, n: 1 } },
      { id: 'c', tool: 'echo', args: { text: { $ref: 'a.output.text' }, n: 2 } },
      { id: 'd', tool: 'echo', args: { text: 'd' }, depends_on: ['b', 'c'] },
    ])
    const seen: string[] = []
    const result = await executePlan(
      plan,
      {
        echo: (args) => {
          seen.push(String(args.text))
          return { text: `${args.text}!` }
        },
      },
      { compiler },
    )
    expect(result.status).toBe('completed')
    expect(seen).toEqual(['a', 'a!', 'a!', 'd'])
    expect(result.order[0]).toBe('a')
    expect(result.order[3]).toBe('d')
    expect(result.steps.d).toMatchObject({ status: 'done', output: { text: 'd!' }, attempts: 1 })
    expect(Object.getPrototypeOf(result.steps)).toBeNull()
  })

  it('should run ready steps in parallel up to the concurrency limit', async () => {
    const plan = compiler.compile(
      Array.from({ length: 10 }, (_, index) => ({
        id: `s${index}`,
        tool: 'produce',
        args: { n: index },
      })),
    )
    let running = 0
    let peak = 0
    const produce: ToolFunction = async () => {
      running += 1
      peak = Math.max(peak, running)
      await sleep(15)
      running -= 1
      return null
    }
    const result = await executePlan(plan, { produce }, { compiler, concurrency: 3 })
    expect(result.status).toBe('completed')
    expect(peak).toBe(3)
  })

  it('should time out a hanging step and abort its signal', async () => {
    const plan = compiler.compile([{ id: 'hang', tool: 'produce' }])
    let signal: AbortSignal | undefined
    const result = await executePlan(
      plan,
      {
        produce: (_args, context) => {
          signal = context.signal
          return new Promise(() => {})
        },
      },
      { compiler, timeoutMs: 30 },
    )
    expect(result.status).toBe('failed')
    expect(result.steps.hang?.issues?.[0]?.code).toBe('step_timeout')
    expect(signal?.aborted).toBe(true)
  })

  it('should retry a failing step a bounded number of times and report the attempts', async () => {
    const plan = compiler.compile([{ id: 'flaky', tool: 'produce' }])
    let calls = 0
    const events: ExecutionEvent[] = []
    const produce: ToolFunction = () => {
      calls += 1
      if (calls < 3) throw new Error(`attempt ${calls}`)
      return 'third time'
    }
    const result = await executePlan(
      plan,
      { produce },
      { compiler, retries: 2, onEvent: (event) => events.push(event) },
    )
    expect(result.steps.flaky).toMatchObject({ status: 'done', attempts: 3, output: 'third time' })
    expect(events.filter((event) => event.type === 'step-retry')).toHaveLength(2)
    const exhausted = await executePlan(
      compiler.compile([{ id: 'never', tool: 'produce' }]),
      { produce: () => Promise.reject(new Error('no')) },
      { compiler, retries: 1 },
    )
    expect(exhausted.steps.never).toMatchObject({ status: 'failed', attempts: 2 })
  })

  it('should stop on abort: running steps aborted, the rest skipped', async () => {
    const plan = compiler.compile([
      { id: 'slow', tool: 'produce' },
      { id: 'after', tool: 'echo', args: { text: 'x' }, depends_on: ['slow'] },
    ])
    const controller = new AbortController()
    let toolSignal: AbortSignal | undefined
    let started: () => void = () => {}
    const running = new Promise<void>((resolve) => {
      started = resolve
    })
    const run = executePlan(
      plan,
      {
        produce: (_args, context) => {
          toolSignal = context.signal
          started()
          return sleep(10_000)
        },
        echo,
      },
      { compiler, signal: controller.signal },
    )
    // Aborted while the tool runs, however slow the machine is.
    await running
    controller.abort()
    const result = await run
    expect(result.status).toBe('aborted')
    expect(result.steps.slow?.status).toBe('aborted')
    expect(result.steps.after?.status).toBe('skipped')
    expect(toolSignal?.aborted).toBe(true)
    const before = new AbortController()
    before.abort()
    expect(
      (await executePlan(plan, { produce: () => null, echo }, { compiler, signal: before.signal }))
        .status,
    ).toBe('aborted')
  })

  it('should stop at the first failure by default (failFast)', async () => {
    const plan = compiler.compile([
      { id: 'bad', tool: 'echo', args: { text: 'bad' } },
      { id: 'slow', tool: 'produce' },
      { id: 'later', tool: 'produce', args: { n: 2 }, depends_on: ['slow'] },
    ])
    const result = await executePlan(
      plan,
      {
        echo: () => {
          throw new Error('boom')
        },
        produce: () => sleep(200),
      },
      { compiler },
    )
    expect(result.status).toBe('failed')
    expect(result.steps.bad?.status).toBe('failed')
    expect(result.steps.slow?.status).toBe('aborted')
    expect(result.steps.later?.status).toBe('skipped')
    expect(result.reason?.stepId).toBe('bad')
  })

  it('should continue past a failure when failFast is false, skipping only dependents', async () => {
    const plan = compiler.compile([
      { id: 'bad', tool: 'echo', args: { text: 'bad' } },
      { id: 'child', tool: 'echo', args: { text: 'child' }, depends_on: ['bad'] },
      { id: 'grandchild', tool: 'echo', args: { text: 'grandchild' }, depends_on: ['child'] },
      { id: 'other', tool: 'produce' },
    ])
    const ran: string[] = []
    const tools = {
      echo: (args: { text?: unknown }) => {
        ran.push(String(args.text))
        throw new Error('boom')
      },
      produce: () => 'fine',
    } as Record<string, ToolFunction>
    const result = await executePlan(plan, tools, { compiler, failFast: false })
    expect(result.status).toBe('failed')
    expect(ran).toEqual(['bad'])
    expect(result.steps.child?.status).toBe('skipped')
    expect(result.steps.grandchild?.status).toBe('skipped')
    expect(result.steps.other).toMatchObject({ status: 'done', output: 'fine' })
  })

  it('should contain tools that throw, hang, return garbage or reject after their timeout', async () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const plan = compiler.compile([
      { id: 'throws', tool: 'echo', args: { text: 'throws' } },
      { id: 'hangs', tool: 'echo', args: { text: 'hangs' } },
      { id: 'cyclic', tool: 'echo', args: { text: 'cyclic' } },
      { id: 'bigint', tool: 'echo', args: { text: 'bigint' } },
      { id: 'late', tool: 'echo', args: { text: 'late' } },
      { id: 'good', tool: 'echo', args: { text: 'good' } },
    ])
    const behaviours: Record<string, () => unknown> = {
      throws: () => {
        throw 'a string, not an Error'
      },
      hangs: () => new Promise(() => {}),
      cyclic: () => cyclic,
      bigint: () => ({ value: 10n }),
      late: () => sleep(60).then(() => Promise.reject(new Error('too late'))),
      good: () => 'ok',
    }
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      const result = await executePlan(
        plan,
        { echo: (args) => behaviours[String(args.text)]?.() },
        { compiler, failFast: false, timeoutMs: 40, concurrency: 6 },
      )
      await sleep(80)
      expect(result.status).toBe('failed')
      expect(result.steps.good).toMatchObject({ status: 'done', output: 'ok' })
      for (const id of ['throws', 'hangs', 'cyclic', 'bigint', 'late'])
        expect(result.steps[id]?.status).toBe('failed')
      expect(result.steps.hangs?.issues?.[0]?.code).toBe('step_timeout')
      expect(result.steps.cyclic?.issues?.[0]?.message).toContain('not JSON')
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })

  it('should check on disk a path that arrives from a previous step output', async () => {
    await symlink('/etc', join(workspace.root, 'etc-link'))
    const plan = compiler.compile([
      { id: 'find', tool: 'produce' },
      { id: 'read', tool: 'view_file', args: { file: { $ref: 'find.output.file' } } },
    ])
    let read = false
    const result = await executePlan(
      plan,
      {
        produce: () => ({ file: 'etc-link/passwd' }),
        view_file: () => {
          read = true
          return 'x'
        },
      },
      { compiler },
    )
    expect(result.status).toBe('denied')
    expect(result.steps.read?.status).toBe('denied')
    expect(result.steps.read?.issues?.[0]?.code).toBe('path_outside_workspace')
    expect(read).toBe(false)
  })

  it('should pass the real path to the tool', async () => {
    await mkdir(join(workspace.root, 'src'))
    await writeFile(join(workspace.root, 'src', 'a.txt'), 'a')
    const plan = compiler.compile([{ id: 'read', tool: 'view_file', args: { file: 'src/a.txt' } }])
    const result = await executePlan(plan, { view_file: (args) => args.file }, { compiler })
    expect(result.steps.read?.output).toBe(join(workspace.root, 'src', 'a.txt'))
  })

  it('should deny a step whose tool has no implementation', async () => {
    const plan = compiler.compile([{ id: 'a', tool: 'produce' }])
    const result = await executePlan(
      plan,
      { constructor: () => null } as unknown as Record<string, ToolFunction>,
      { compiler },
    )
    expect(result.status).toBe('denied')
    expect(result.steps.a?.issues?.[0]?.code).toBe('unknown_tool')
  })

  it('should report budget denials and emit progress events in order', async () => {
    compiler = await createTestCompiler(workspace.root, { budgets: { maxCalls: 1 } })
    const plan = compiler.compile([
      { id: 'a', tool: 'produce' },
      { id: 'b', tool: 'echo', args: { text: 'b' }, depends_on: ['a'] },
    ])
    const events: ExecutionEvent[] = []
    const options: ExecutePlanOptions = {
      compiler,
      onEvent: (event) => {
        events.push(event)
        throw new Error('a listener that throws changes nothing')
      },
    }
    const result = await executePlan(plan, { produce: () => 1, echo }, options)
    expect(result.status).toBe('denied')
    expect(result.steps.b?.issues?.[0]?.code).toBe('budget_exhausted')
    expect(events.map((event) => event.type)).toEqual([
      'plan-start',
      'step-start',
      'step-end',
      'denied',
      'plan-end',
    ])
  })

  it('should stop at the policy deadline', async () => {
    compiler = await createTestCompiler(workspace.root, { budgets: { deadlineMs: 50 } })
    const plan = compiler.compile([{ id: 'slow', tool: 'produce' }])
    const result = await executePlan(plan, { produce: () => sleep(5_000) }, { compiler })
    expect(result.status).toBe('denied')
    expect(result.reason?.code).toBe('deadline_exceeded')
    expect(result.steps.slow?.status).toBe('aborted')
  })

  it('should resume from a restored guard and run only what is left', async () => {
    const plan = compiler.compile([
      { id: 'a', tool: 'produce' },
      { id: 'b', tool: 'echo', args: { text: { $ref: 'a.output.t' } } },
    ])
    const first = createPlanGuard(plan, { compiler })
    await first.authorize({ tool: 'produce', args: {} })
    first.complete('a', { t: 'from before' })
    const state = JSON.parse(JSON.stringify(first.snapshot())) as PlanGuardState
    const guard = createPlanGuard(undefined, { compiler, state })
    let produced = 0
    const result = await executePlan(
      plan,
      {
        produce: () => {
          produced += 1
          return { t: 'again' }
        },
        echo,
      },
      { compiler, guard },
    )
    expect(result.status).toBe('completed')
    expect(produced).toBe(0)
    expect(result.steps.a).toMatchObject({
      status: 'done',
      attempts: 0,
      output: { t: 'from before' },
    })
    expect(result.steps.b).toMatchObject({ status: 'done', output: { text: 'from before' } })
  })
})
