import { beforeAll, describe, expect, it } from 'vitest'
import type { PlanCompiler } from '../types/plan-compiler.js'
import { echoCompiler } from './__fixtures__/echo-compiler.js'
import { createPlanGuard } from './create-plan-guard.js'
import { GuardHandle } from './guard-handle.js'

let compiler: PlanCompiler

beforeAll(async () => {
  compiler = await echoCompiler()
})

describe('GuardHandle', () => {
  it('should show the plan installed last, read when asked', () => {
    const guard = createPlanGuard(undefined, { compiler })
    expect(guard).toBeInstanceOf(GuardHandle)
    expect(guard.plan).toBeUndefined()

    const turn = guard.submitPlan([{ id: 'c1', tool: 'echo', args: { text: 'hi' } }], 'turn')

    expect(turn.success).toBe(true)
    expect(guard.plan?.steps.map((step) => step.id)).toEqual(['c1'])
    expect(guard.plan).toBe(turn.success ? turn.plan : undefined)
  })

  it('should keep every method working when it is taken off the guard', async () => {
    const { authorize, complete, isComplete, readySteps } = createPlanGuard(
      compiler.compile([{ id: 'a', tool: 'echo', args: { text: 'hi' } }]),
      { compiler },
    )
    expect(readySteps().map((step) => step.id)).toEqual(['a'])

    const decision = await authorize({ tool: 'echo', args: { text: 'hi' } })
    if (!decision.allowed) throw new Error(decision.issue.message)
    complete(decision.stepId, 'done')

    expect(isComplete()).toBe(true)
  })

  it('should not let a caller replace the plan it reports', () => {
    const guard = createPlanGuard(
      compiler.compile([{ id: 'a', tool: 'echo', args: { text: 'x' } }]),
      {
        compiler,
      },
    )
    const plan = guard.plan

    expect(() => {
      ;(guard as { plan: unknown }).plan = undefined
    }).toThrow(TypeError)
    expect(guard.plan).toBe(plan)
  })
})
