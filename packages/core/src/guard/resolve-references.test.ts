import { beforeAll, describe, expect, it } from 'vitest'
import type { PlanCompiler } from '../types/plan-compiler.js'
import { echoCompiler } from './__fixtures__/echo-compiler.js'
import { resolveReferences } from './resolve-references.js'

let compiler: PlanCompiler

beforeAll(async () => {
  compiler = await echoCompiler()
})

describe('resolveReferences', () => {
  it('should give a step without references its own frozen arguments', () => {
    const [step] = compiler.compile([{ id: 'a', tool: 'echo', args: { text: 'hi' } }]).steps
    if (step === undefined) throw new Error('no step')

    const resolved = resolveReferences(step, new Map())

    expect(resolved).toEqual({ success: true, args: { text: 'hi' } })
    if (resolved.success) expect(Object.isFrozen(resolved.args)).toBe(true)
  })

  it('should put a copy of the referenced output in place of the reference', () => {
    const plan = compiler.compile([
      { id: 'a', tool: 'echo', args: { text: 'hi' } },
      { id: 'b', tool: 'echo', args: { text: { $ref: 'a.output.text' } } },
    ])
    const output = { text: 'from a' }

    const resolved = resolveReferences(
      plan.steps[1] as (typeof plan.steps)[number],
      new Map([['a', output]]),
    )

    expect(resolved).toEqual({ success: true, args: { text: 'from a' } })
    if (resolved.success) expect(resolved.args).not.toBe(plan.steps[1]?.args)
  })
})
