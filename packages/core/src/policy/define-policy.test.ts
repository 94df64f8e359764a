import { describe, expect, it } from 'vitest'
import { createPlanCompiler } from '../compile/create-plan-compiler.js'
import { definePlan } from '../plan/define-plan.js'
import { definePolicy } from './define-policy.js'

describe('definePolicy', () => {
  it('should return the policy it is given, which a compiler accepts', async () => {
    const policy = definePolicy({
      version: 1,
      workspace: { roots: ['/srv/repo'] },
      tools: { t: {} },
    })
    expect(policy).toEqual({ version: 1, workspace: { roots: ['/srv/repo'] }, tools: { t: {} } })
    const compiler = await createPlanCompiler(policy)
    expect(compiler.validate(definePlan({ steps: [{ id: 'a', tool: 't' }] })).success).toBe(true)
  })
})

describe('definePlan', () => {
  it('should return the very plan object it is given', () => {
    const steps = [{ id: 'a', tool: 't' }]
    expect(definePlan(steps)).toBe(steps)
  })
})
