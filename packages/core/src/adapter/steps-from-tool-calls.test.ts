import { describe, expect, it } from 'vitest'
import { createPlanCompiler } from '../compile/create-plan-compiler.js'
import { stepsFromToolCalls } from './steps-from-tool-calls.js'

describe('stepsFromToolCalls', () => {
  it('should make one step per call, named by the call id, with the arguments unchanged', () => {
    const args = { file: 'README.md' }
    const steps = stepsFromToolCalls([{ id: 'call_a', tool: 'view_file', args }])
    expect(steps).toEqual([{ id: 'call_a', tool: 'view_file', args }])
    expect(steps[0]?.args).toBe(args)
  })

  it('should name calls whose ids are missing, invalid or taken call_<n>, unique against own ids', () => {
    const steps = stepsFromToolCalls([
      { id: 'functions.view:0', tool: 't', args: {} },
      { tool: 't', args: {} },
      { id: 'call_1', tool: 't', args: {} },
      { id: 'call_1', tool: 't', args: {} },
      { id: 'x'.repeat(129), tool: 't', args: {} },
    ])
    const ids = steps.map((step) => step.id)
    expect(ids).toEqual(['call_1_2', 'call_2', 'call_1', 'call_4', 'call_5'])
  })

  it('should name a lone call as the first of several: its own valid id, else call_1', () => {
    for (const id of ['call_1', 'c1', undefined, 'functions.view:0', 'x'.repeat(129)]) {
      const [lone] = stepsFromToolCalls([{ id, tool: 't', args: {}, turn: 4 }])
      const [first] = stepsFromToolCalls([
        { id, tool: 't', args: {} },
        { id: 'other', tool: 't', args: {} },
      ])
      expect(lone).toEqual({ id: first?.id, tool: 't', args: {} })
      expect(lone?.id).toBe(id === 'call_1' || id === 'c1' ? id : 'call_1')
    }
  })

  it('should make each turn depend on the previous one', () => {
    const steps = stepsFromToolCalls([
      { id: 'a', tool: 't', args: {}, turn: 0 },
      { id: 'b', tool: 't', args: {}, turn: 0 },
      { id: 'c', tool: 't', args: {}, turn: 2 },
      { id: 'd', tool: 't', args: {}, turn: 3 },
    ])
    expect(steps.map((step) => step.depends_on)).toEqual([undefined, undefined, ['a', 'b'], ['c']])
  })

  it('should give steps that the compiler checks like any plan', async () => {
    const compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: ['/srv/repo'] },
      tools: { view_file: { args: { file: { type: 'path' } } } },
    })
    const steps = stepsFromToolCalls([
      { id: 'a', tool: 'view_file', args: { file: '../../etc/passwd' } },
    ])
    const result = compiler.validate({ steps: [...steps] })
    expect(result.issues.map((issue) => issue.code)).toEqual(['path_outside_workspace'])
  })
})
