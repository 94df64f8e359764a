import { PlanError, PolicyError } from '@plan/shell/common'
import { describe, expect, it } from 'vitest'
import { PlanCompilationError } from './plan-compilation-error.js'

const issue = { code: 'unknown_tool', message: 'no such tool', path: ['steps', 0] } as const

describe('PlanError', () => {
  it('should recognise every subclass as a PlanError', () => {
    expect(PlanError.isInstance(new PlanError('x', { code: 'invalid_configuration' }))).toBe(true)
    expect(PlanError.isInstance(new PolicyError([]))).toBe(true)
    expect(PlanError.isInstance(new PlanCompilationError([issue]))).toBe(true)
    expect(PlanError.isInstance(new Error('x'))).toBe(false)
    expect(PlanError.isInstance(null)).toBe(false)
  })

  it('should carry a code and at least one issue, even when given none', () => {
    const error = new PlanError('The guard does not hold the plan.', {
      code: 'invalid_configuration',
    })
    expect(error.code).toBe('invalid_configuration')
    expect(error.issues).toEqual([
      { code: 'invalid_configuration', message: 'The guard does not hold the plan.', path: [] },
    ])
    expect(new PlanError('x', { issues: [issue] }).code).toBe('unknown_tool')
    expect(new PlanError('x').code).toBe('internal_error')
  })

  it('should not throw on objects whose marker getter throws', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap')
        },
      },
    )
    expect(PlanError.isInstance(hostile)).toBe(false)
    expect(PolicyError.isInstance(hostile)).toBe(false)
  })
})

describe('PolicyError', () => {
  it('should have its own marker', () => {
    expect(PolicyError.isInstance(new PolicyError([]))).toBe(true)
    expect(PolicyError.isInstance(new PlanCompilationError([]))).toBe(false)
    expect(PolicyError.isInstance(new PlanError('x'))).toBe(false)
    expect(new PolicyError([]).code).toBe('invalid_policy')
  })
})

describe('PlanCompilationError', () => {
  it('should have its own marker and take the code of its first issue', () => {
    expect(PlanCompilationError.isInstance(new PlanCompilationError([issue]))).toBe(true)
    expect(PlanCompilationError.isInstance(new PolicyError([]))).toBe(false)
    expect(new PlanCompilationError([issue]).code).toBe('unknown_tool')
  })

  it('should recognise an error made by another copy of the package by its marker', () => {
    const foreign = Object.assign(new Error('x'), {
      [Symbol.for('@plan/core.error')]: true,
      [Symbol.for('@plan/core.error.plan-compilation')]: true,
    })
    expect(PlanCompilationError.isInstance(foreign)).toBe(true)
    expect(PolicyError.isInstance(foreign)).toBe(false)
  })
})
