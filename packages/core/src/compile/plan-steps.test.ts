import { beforeAll, describe, expect, it } from 'vitest'
import type { PlanCompiler } from '../types/plan-compiler.js'
import { planSteps } from './build-compiled-plan.js'
import { createPlanCompiler } from './create-plan-compiler.js'

let compiler: PlanCompiler
beforeAll(async () => {
  compiler = await createPlanCompiler({
    version: 1,
    workspace: { roots: ['/srv/repo'] },
    tools: { work: { args: { n: { type: 'number' } } }, other: { args: {} } },
  })
})

const plan = () =>
  compiler.compile([
    { id: 'a', tool: 'work', args: { n: 1 } },
    { id: 'b', tool: 'other', args: {}, depends_on: ['a'] },
    { id: 'c', tool: 'work', args: { n: { $ref: 'b' } }, depends_on: ['a'] },
  ])

describe('planSteps', () => {
  it('should read ids, tools and dependencies by position, with steps equal to the plan’s', () => {
    const compiled = plan()
    const steps = planSteps(compiled)
    expect(steps.size).toBe(3)
    expect(steps.ids).toEqual(['a', 'b', 'c'])
    expect(steps.positions.get('c')).toBe(2)
    expect([0, 1, 2].map((position) => steps.tool(position))).toEqual(['work', 'other', 'work'])
    expect(Array.from(steps.dependencies(2)).sort()).toEqual([0, 1])
    const made = steps.step(2)
    expect(Object.isFrozen(made) && Object.isFrozen(made.dependsOn)).toBe(true)
    expect(steps.step(2)).toBe(made)
    expect(made).toEqual(compiled.steps[2])
  })

  it('should give the plan’s own step objects once they were made', () => {
    const compiled = plan()
    const own = compiled.steps
    expect(planSteps(compiled).step(1)).toBe(own[1])
  })

  it('should rebuild the levels from the columns, the same at every read', () => {
    const compiled = plan()
    expect(compiled.levels).toEqual([['a'], ['b'], ['c']])
    expect(compiled.levels).toBe(compiled.levels)
    expect(Object.isFrozen(compiled.levels[0])).toBe(true)
  })
})
