import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import type { PolicyInput } from '../schema/policy-schema.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import { createPlanCompiler } from './create-plan-compiler.js'
import { parsePlanText } from './parse-plan-text.js'

const fixtureText = (name: string): string =>
  readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8')

let compiler: PlanCompiler
beforeAll(async () => {
  compiler = await createPlanCompiler(JSON.parse(fixtureText('seed-policy.json')) as PolicyInput)
})

describe('parsePlanText', () => {
  it('should return the value of JSON text', () => {
    expect(parsePlanText('{"steps":[]}')).toEqual({ plan: { steps: [] } })
  })

  it('should answer text that is not JSON, or not a string, with an invalid_plan issue', () => {
    const bad = parsePlanText('{"steps":[')
    expect(bad).toEqual({
      issue: expect.objectContaining({ code: 'invalid_plan', path: [], hint: expect.any(String) }),
    })
    expect('issue' in bad && bad.issue.message).toMatch(/^The plan is not valid JSON: .+\.$/)
    const notText = parsePlanText({ steps: [] })
    expect('issue' in notText && notText.issue.message).toBe(
      'The plan text must be a string, got an object.',
    )
  })
})

describe('PlanCompiler.validateText', () => {
  it('should give arguments in sorted key order, whatever the order in the text', async () => {
    const optional = { type: 'string', required: false } as const
    const sorting = await createPlanCompiler({
      version: 1,
      workspace: { roots: ['/srv/repo'] },
      tools: { t: { args: { a: optional, b: optional, c: optional } } },
    })
    for (const args of ['{"b":"1","a":"2"}', '{"c":"1","a":"2","b":"3"}', '{"c":"1","b":"2"}']) {
      const text = `{"steps":[{"id":"s","tool":"t","args":${args}}]}`
      const result = sorting.validateText(text)
      const keys = result.success ? Object.keys(result.plan.steps[0]?.args ?? {}) : []
      expect(keys).toEqual(Object.keys(JSON.parse(args)).sort())
      expect(JSON.stringify(result)).toBe(JSON.stringify(sorting.validate(JSON.parse(text))))
    }
  })

  it('should compile the seed plans exactly as validate(JSON.parse(text)) does', () => {
    for (const name of ['seed-plan-1.json', 'seed-plan-2.json', 'seed-plan-3.json']) {
      const text = fixtureText(name)
      const expected = compiler.validate(JSON.parse(text))
      const actual = compiler.validateText(text)
      expect(actual).toEqual(expected)
      expect(JSON.stringify(actual)).toBe(JSON.stringify(expected))
    }
  })

  it('should record the plans it approves, deep-frozen', () => {
    const result = compiler.validateText(fixtureText('seed-plan-1.json'))
    if (!result.success) throw new Error('seed plan 1 rejected')
    expect(compiler.approves(result.plan)).toBe(true)
    expect(Object.isFrozen(result.plan.steps[0]?.args)).toBe(true)
  })

  it('should answer bad JSON with one invalid_plan issue, never a throw', () => {
    for (const text of ['', '{', '{"steps": [}', 'undefined', '{"steps":[]} x']) {
      const result = compiler.validateText(text)
      expect(result.success).toBe(false)
      expect(result.issues).toHaveLength(1)
      expect(result.issues[0]).toMatchObject({ code: 'invalid_plan', path: [] })
    }
    expect(compiler.validateText(42 as never).issues[0]?.code).toBe('invalid_plan')
  })

  it('should report __proto__ keys as validate does, without polluting a prototype', () => {
    const text =
      '{"steps":[{"id":"a","tool":"view_file","args":{"file":"x","__proto__":{"polluted":true}},"__proto__":1}]}'
    const actual = compiler.validateText(text)
    expect(actual).toEqual(compiler.validate(JSON.parse(text)))
    expect(actual.issues.map((issue) => issue.path)).toContainEqual([
      'steps',
      0,
      'args',
      '__proto__',
    ])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('should judge args inherited from a polluted prototype as validate does', async () => {
    const echo = await createPlanCompiler({
      version: 1,
      workspace: { roots: ['/srv/repo'] },
      tools: {
        echo: { args: { text: { type: 'string', required: false }, data: { type: 'json' } } },
      },
    })
    class Args {
      text = 'x'
    }
    const reference = Object.assign(new Args(), { $ref: 's0' })
    const inherited = [
      new Args(),
      new Map(),
      { text: reference, data: {} },
      { data: { nested: new Args() } },
      { data: [reference] },
    ]
    const text = '{"steps":[{"id":"s0","tool":"echo","args":{"data":1}},{"id":"s1","tool":"echo"}]}'
    for (const args of inherited) {
      Object.defineProperty(Object.prototype, 'args', { value: args, configurable: true })
      try {
        const expected = echo.validate(JSON.parse(text))
        expect(expected.success).toBe(false)
        expect(JSON.stringify(echo.validateText(text))).toBe(JSON.stringify(expected))
        expect(Object.isFrozen(args)).toBe(false)
      } finally {
        delete (Object.prototype as { args?: unknown }).args
      }
    }
  })

  it.each([
    ['tool', 'echo'],
    ['args', { text: 'x' }],
    ['dependsOn', ['s9']],
    ['description', 42],
  ])('should read only a step own %s, never one a polluted prototype holds', async (key, value) => {
    const echo = await createPlanCompiler({
      version: 1,
      workspace: { roots: ['/srv/repo'] },
      tools: { echo: { args: { text: { type: 'string', required: false } } } },
    })
    const text = '{"steps":[{"id":"s0","tool":"echo","args":{}},{"id":"s1"}]}'
    const clean = [echo.validateText(text), echo.validate(JSON.parse(text))]
    Object.defineProperty(Object.prototype, key, { value, configurable: true })
    try {
      const polluted = [echo.validateText(text), echo.validate(JSON.parse(text))]

      expect(JSON.stringify(polluted)).toBe(JSON.stringify(clean))
      expect(polluted[0]?.issues.map((issue) => issue.message)).toContain('Step has no tool.')
      // A polluted object is the caller's: the compiler never freezes it.
      expect(typeof value !== 'object' || !Object.isFrozen(value)).toBe(true)
    } finally {
      delete (Object.prototype as Record<string, unknown>)[key]
    }
  })
})
