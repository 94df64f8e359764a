import { describe, expect, it } from 'vitest'
import type { PolicyInput } from '../schema/policy-schema.js'
import { createPlanCompiler } from './create-plan-compiler.js'
import { validateUnrecorded } from './validate-unrecorded.js'

const policy: PolicyInput = {
  version: 1,
  workspace: { roots: ['/srv/repo'] },
  tools: { echo: { args: { text: { type: 'string' } } } },
}

describe('validateUnrecorded', () => {
  it('should approve what validate approves, without recording the plan for approves', async () => {
    const compiler = await createPlanCompiler(policy)
    const steps = [{ id: 'a', tool: 'echo', args: { text: 'hi' } }]

    const unrecorded = validateUnrecorded(compiler, steps)
    const recorded = compiler.validate(steps)

    if (!unrecorded.success || !recorded.success) throw new Error('not approved')
    expect(unrecorded.plan.hash).toBe(recorded.plan.hash)
    expect(compiler.approves(unrecorded.plan)).toBe(false)
    expect(compiler.approves(recorded.plan)).toBe(true)
  })

  it('should reject what validate rejects, with the same issues', async () => {
    const compiler = await createPlanCompiler(policy)
    const steps = [{ id: 'a', tool: 'rm', args: {} }]

    expect(validateUnrecorded(compiler, steps)).toEqual(compiler.validate(steps))
  })

  it('should use validate of a compiler it was not given by createPlanCompiler', async () => {
    const compiler = await createPlanCompiler(policy)
    const copy = { ...compiler }
    const result = validateUnrecorded(copy, [{ id: 'a', tool: 'echo', args: { text: 'hi' } }])

    if (!result.success) throw new Error('not approved')
    expect(compiler.approves(result.plan)).toBe(true)
    expect(Object.keys(compiler)).toEqual(Object.keys(copy))
  })
})
