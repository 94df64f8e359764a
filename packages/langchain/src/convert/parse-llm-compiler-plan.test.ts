import { createPlanCompiler } from '@plan/core'
import { describe, expect, it } from 'vitest'
import { parseLLMCompilerPlan } from './parse-llm-compiler-plan.js'

describe('parseLLMCompilerPlan', () => {
  it('should read numbered calls, turn $N into references and stop at join()', () => {
    const result = parseLLMCompilerPlan(
      [
        'Thought: I need the README first.',
        '1. view_file(file="README.md")',
        "2. write_file(file='NOTES.md', content=$1)",
        '3. join()<END_OF_PLAN>',
      ].join('\n'),
    )
    expect(result).toEqual({
      success: true,
      issues: [],
      steps: [
        { id: '1', tool: 'view_file', args: { file: 'README.md' } },
        { id: '2', tool: 'write_file', args: { file: 'NOTES.md', content: { $ref: '1' } } },
      ],
    })
  })

  it('should read JSON and Python literals and every reference spelling', () => {
    const result = parseLLMCompilerPlan(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: LLMCompiler writes references as ${N}
      '1. search(query="a \\"b\\"", limit=3, exact=True, since=None, tags=["x", \'y\'], options={"deep": false})\n2. math(values=[${1}, "$1"])',
    )
    expect(result.success).toBe(true)
    expect(result.steps).toEqual([
      {
        id: '1',
        tool: 'search',
        args: {
          query: 'a "b"',
          limit: 3,
          exact: true,
          since: null,
          tags: ['x', 'y'],
          options: { deep: false },
        },
      },
      { id: '2', tool: 'math', args: { values: [{ $ref: '1' }, { $ref: '1' }] } },
    ])
  })

  it('should name positional arguments from argumentNames, or take one object as the arguments', () => {
    const named = parseLLMCompilerPlan('1. search("weather", 5)', {
      argumentNames: { search: ['query', 'limit'] },
    })
    expect(named.steps[0]?.args).toEqual({ query: 'weather', limit: 5 })
    const object = parseLLMCompilerPlan('1. search({"query": "weather"})')
    expect(object.steps[0]?.args).toEqual({ query: 'weather' })
  })

  it('should report every line it cannot read, with its line number, and never throw', () => {
    const result = parseLLMCompilerPlan(
      [
        '1. search("no names")',
        '2. search(query="open',
        '3. search(query=$1 + 1)',
        '4. search(query="total: $1")',
        '5. fine(x=1)',
      ].join('\n'),
    )
    expect(result.success).toBe(false)
    expect(result.issues.map((issue) => issue.path)).toEqual([
      ['lines', 0],
      ['lines', 1],
      ['lines', 2],
      ['lines', 3],
    ])
    expect(result.issues.every((issue) => issue.code === 'invalid_plan')).toBe(true)
    expect(result.issues[0]?.message).toContain('Line 1:')
    expect(result.steps).toEqual([{ id: '5', tool: 'fine', args: { x: 1 } }])
  })

  it('should report tasks after join() and text without tasks', () => {
    expect(parseLLMCompilerPlan('1. join()\n2. search(query="late")').issues[0]?.message).toContain(
      'follows join()',
    )
    expect(parseLLMCompilerPlan('I will not plan.').issues[0]?.message).toContain(
      'No numbered task lines',
    )
    expect(parseLLMCompilerPlan(42 as unknown as string).success).toBe(false)
  })

  it('should keep __proto__ a plain argument and refuse deep nesting', () => {
    const result = parseLLMCompilerPlan('1. t(__proto__={"polluted": true})')
    expect(Object.getPrototypeOf(result.steps[0]?.args)).toBe(Object.prototype)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    const deep = parseLLMCompilerPlan(`1. t(x=${'['.repeat(100)}${']'.repeat(100)})`)
    expect(deep.issues[0]?.message).toContain('nested')
  })

  it('should give steps the compiler checks: undefined references and bad paths are found', async () => {
    const compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: ['/srv/repo'] },
      tools: { view_file: { args: { file: { type: 'path' } } } },
    })
    const { steps } = parseLLMCompilerPlan(
      '1. view_file(file="../../etc/passwd")\n2. view_file(file=$7)',
    )
    const codes = compiler.validate({ steps }).issues.map((issue) => issue.code)
    expect(codes).toContain('path_outside_workspace')
    expect(
      codes.some((code) => code === 'undefined_dependency' || code === 'invalid_reference'),
    ).toBe(true)
  })
})
