import { PlanError } from '@plan/shell/common'
import { describe, expect, it } from 'vitest'
import { createPlanCompiler } from '../compile/create-plan-compiler.js'
import { replanLimit } from './replan-limit.js'

const compiler = createPlanCompiler({
  version: 1,
  workspace: { roots: ['/srv/repo'] },
  tools: {},
  budgets: { maxReplans: 4 },
})

describe('replanLimit', () => {
  it("should default to the policy's maxReplans", async () => {
    expect(replanLimit(await compiler, undefined)).toBe(4)
  })

  it('should let the caller lower the bound, to no re-plan at all', async () => {
    expect(replanLimit(await compiler, 2)).toBe(2)
    expect(replanLimit(await compiler, 0)).toBe(0)
  })

  it("should never exceed the policy's maxReplans", async () => {
    expect(replanLimit(await compiler, 100)).toBe(4)
  })

  it('should refuse a maxReplans that is not a count with invalid_configuration', async () => {
    const resolved = await compiler
    for (const value of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      let thrown: unknown
      try {
        replanLimit(resolved, value)
      } catch (error) {
        thrown = error
      }
      expect(PlanError.isInstance(thrown) && thrown.code).toBe('invalid_configuration')
    }
  })
})
