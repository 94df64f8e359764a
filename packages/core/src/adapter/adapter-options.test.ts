import { PlanError } from '@plan/shell/common'
import { describe, expect, it } from 'vitest'
import { createPlanCompiler } from '../compile/create-plan-compiler.js'
import { type AdapterOptions, resolveCompiler } from './adapter-options.js'

const policy = {
  version: 1 as const,
  workspace: { roots: ['/srv/repo'] },
  tools: { view_file: { args: { file: { type: 'path' as const } } } },
}

function thrown(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  return undefined
}

describe('resolveCompiler', () => {
  it('should create a compiler from a policy', async () => {
    const compiler = await resolveCompiler({ policy }, 'test')
    expect(compiler.policy.tools.has('view_file')).toBe(true)
  })

  it('should return the compiler it is given, or the one its promise resolves to', async () => {
    const compiler = await createPlanCompiler(policy)
    expect(await resolveCompiler({ compiler }, 'test')).toBe(compiler)
    expect(await resolveCompiler({ compiler: Promise.resolve(compiler) }, 'test')).toBe(compiler)
  })

  it('should throw at once, with a code and a hint, when given both a policy and a compiler', async () => {
    const compiler = await createPlanCompiler(policy)
    const error = thrown(() => resolveCompiler({ policy, compiler } as never, 'myAdapter'))
    expect(PlanError.isInstance(error)).toBe(true)
    const planError = error as PlanError
    expect(planError.code).toBe('invalid_configuration')
    expect(planError.message).toContain('myAdapter was given both a policy and a compiler')
    expect(planError.issues[0]?.hint).toBe('Pass exactly one of `policy` or `compiler`.')
  })

  it('should throw at once, with the same code and hint, when given neither', () => {
    const error = thrown(() => resolveCompiler({}, 'myAdapter'))
    expect(PlanError.isInstance(error)).toBe(true)
    const planError = error as PlanError
    expect(planError.code).toBe('invalid_configuration')
    expect(planError.message).toContain('myAdapter needs a policy or a compiler')
    expect(planError.issues[0]?.hint).toBe('Pass exactly one of `policy` or `compiler`.')
  })

  it('should type the options as exactly one of policy or compiler', async () => {
    const compiler = await createPlanCompiler(policy)
    const withPolicy: AdapterOptions = { policy, plan: [{ id: 'a', tool: 'view_file' }] }
    const withCompiler: AdapterOptions = { compiler, onDecision: (event) => void event.kind }
    // @ts-expect-error both a policy and a compiler
    const both: AdapterOptions = { policy, compiler }
    // @ts-expect-error the plan is a plan, not any value
    const badPlan: AdapterOptions = { policy, plan: 42 }
    expect([withPolicy, withCompiler, both, badPlan]).toHaveLength(4)
  })
})
