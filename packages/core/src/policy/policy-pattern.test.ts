import { PolicyError } from '@plan/shell/common'
import { beforeAll, describe, expect, it } from 'vitest'
import { createPlanCompiler } from '../compile/create-plan-compiler.js'
import type { PolicyInput } from '../schema/policy-schema.js'
import { compilePolicyPattern, LinearRegExp, loadPatternEngine } from './policy-pattern.js'
import { resolvePolicy } from './resolve-policy.js'

const policyWith = (pattern: string): PolicyInput => ({
  version: 1,
  workspace: { roots: ['/srv/repo'] },
  tools: { tag: { args: { name: { type: 'string', pattern } } } },
})

describe('compilePolicyPattern', () => {
  beforeAll(() => loadPatternEngine())

  it('should match the whole value', () => {
    const result = compilePolicyPattern('[a-z]+|[0-9]+')
    expect(result.success).toBe(true)
    if (!result.success) return
    expect(result.pattern.test('abc')).toBe(true)
    expect(result.pattern.test('123')).toBe(true)
    expect(result.pattern.test('abc123')).toBe(false)
    expect(result.pattern.test('xabc\n')).toBe(false)
  })

  it('should match nested quantifiers against long adversarial values without backtracking', () => {
    const result = compilePolicyPattern('(a+)+b')
    expect(result.success).toBe(true)
    if (!result.success) return
    expect(result.pattern.test('a'.repeat(100_000))).toBe(false)
    expect(result.pattern.test(`${'a'.repeat(100_000)}b`)).toBe(true)
  })

  it.each([
    ['(a', 'not a valid regular expression'],
    ['(?=a)a', 'linear-time engine'],
    ['(a)\\1', 'linear-time engine'],
    ['(?<!x)y', 'linear-time engine'],
  ])('should refuse %j', (pattern, reason) => {
    const result = compilePolicyPattern(pattern)
    expect(result.success).toBe(false)
    if (!result.success) expect(result.message).toContain(reason)
  })
})

describe('resolvePolicy (patterns)', () => {
  it('should refuse an invalid pattern with an invalid_policy issue at its path', () => {
    let caught: unknown
    try {
      resolvePolicy(policyWith('(a'))
    } catch (error) {
      caught = error
    }
    expect(PolicyError.isInstance(caught)).toBe(true)
    expect((caught as PolicyError).issues).toEqual([
      expect.objectContaining({
        code: 'invalid_policy',
        path: ['tools', 'tag', 'args', 'name', 'pattern'],
      }),
    ])
  })

  it('should refuse an invalid pattern nested in array items', () => {
    const policy = {
      version: 1,
      workspace: { roots: ['/srv/repo'] },
      tools: {
        tag: { args: { names: { type: 'array', items: { type: 'string', pattern: '(?=x)' } } } },
      },
    }
    expect(() => resolvePolicy(policy)).toThrow(/linear-time engine/)
  })
})

describe('createPlanCompiler (patterns)', () => {
  it('should validate against an exponential pattern in linear time', async () => {
    const compiler = await createPlanCompiler(policyWith('(a+)+b'))
    const plan = [{ id: 's', tool: 'tag', args: { name: 'a'.repeat(50_000) } }]
    const result = compiler.validate(plan)
    expect(result.success).toBe(false)
    if (!result.success) expect(result.issues[0]?.code).toBe('invalid_arguments')
    expect(compiler.validate([{ id: 's', tool: 'tag', args: { name: 'aab' } }]).success).toBe(true)
  })

  it('should match the narrowed plan schema with the linear engine too', async () => {
    const compiler = await createPlanCompiler(policyWith('(a+)+b'))
    const step = (name: string) => ({ steps: [{ id: 's', tool: 'tag', args: { name } }] })
    const schema = await compiler.planSchema()
    expect(schema.safeParse(step('a'.repeat(50_000))).success).toBe(false)
    expect(schema.safeParse(step('aab')).success).toBe(true)
  })
})

describe('LinearRegExp', () => {
  it('should keep the anchored source for JSON Schema and match with the linear engine', () => {
    const compiled = compilePolicyPattern('(a|aa)+c')
    if (!compiled.success) throw new Error(compiled.message)
    const regex = new LinearRegExp(compiled.pattern)
    expect(regex.source).toBe('^(?:(a|aa)+c)$')
    expect(regex.test('a'.repeat(50_000))).toBe(false)
    expect(regex.exec('aac')?.[0]).toBe('aac')
  })
})

describe('hasPatterns', () => {
  it('should find a pattern at any depth and nothing in a policy without one', async () => {
    const { hasPatterns } = await import('./policy-pattern.js')
    expect(
      hasPatterns({
        tools: { t: { args: { a: { type: 'array', items: { type: 'string', pattern: 'x' } } } } },
      }),
    ).toBe(true)
    expect(hasPatterns({ tools: { t: { args: { a: { type: 'string' } } } } })).toBe(false)
  })
})
