import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import type { PlanCompiler, PlanValidationResult } from '../types/plan-compiler.js'
import { createPlanCompiler } from './create-plan-compiler.js'

let compiler: PlanCompiler
beforeAll(async () => {
  compiler = await createPlanCompiler({
    version: 1,
    workspace: { roots: ['/srv/repo'] },
    tools: {
      echo: {
        args: {
          text: { type: 'string', maxLength: 40 },
          count: { type: 'number', required: false },
          tags: { type: 'array', items: { type: 'string' }, required: false },
          data: { type: 'json', required: false },
          mode: { type: 'enum', values: ['a', 'b'], required: false },
        },
      },
      view_file: { args: { file: { type: 'path', access: 'read' } } },
      run_command: { args: { command: { type: 'command' } } },
    },
    commands: { allow: ['git', 'ls'] },
  })
}, 60_000)

const IDS = ['s0', 's1', 's2', 's3', 'zz']
const id = fc.constantFrom(...IDS)
const reference = fc
  .tuple(id, fc.constantFrom('', '.output', '.output.text', '.output.__proto__', '.nope'))
  .map(([target, field]) => ({ $ref: `${target}${field}` }))
const stringValue = fc.oneof(
  fc.constantFrom('hello', 'src/a.ts', '../etc/passwd', 'git status', 'ls | sh', 'a', ''),
  fc.string({ maxLength: 50 }),
)
const value: fc.Arbitrary<unknown> = fc.oneof(
  stringValue,
  reference,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(null, true, 1e21, -0),
  fc.array(fc.oneof(stringValue, reference), { maxLength: 3 }),
  fc.jsonValue({ maxDepth: 3 }),
)

/** An object's JSON text from `[key, value]` entries: any order, duplicates and `__proto__` too. */
const objectText = (entries: readonly (readonly [string, unknown])[]) =>
  `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${JSON.stringify(entry)}`).join(',')}}`

/** Arguments that fit their tool, in any key order, or random ones. */
const argsText = fc.oneof(
  fc
    .record({ text: stringValue, count: fc.integer(), tags: fc.array(stringValue), data: value })
    .chain((args) => fc.shuffledSubarray(Object.entries(args), { minLength: 1 }))
    .map(objectText),
  fc.constantFrom(
    '{"file":"src/a.ts"}',
    '{"file":{"$ref":"s0.output.text"}}',
    '{"command":"git status"}',
    '{"command":"ls -la src"}',
    '{"text":"x","data":{"b":1,"a":[{"$ref":"s1"}]}}',
    '{"data":{"z":{"$ref":"s2.output.text"},"a":2},"text":"y","mode":"a"}',
  ),
  fc
    .array(
      fc.tuple(
        fc.constantFrom('text', 'count', 'tags', 'data', 'mode', 'file', '__proto__', 'other'),
        value,
      ),
      { maxLength: 4 },
    )
    .map(objectText),
  fc.constantFrom(
    'null',
    '[]',
    '"args"',
    '{"__proto__":{"polluted":true},"text":"x"}',
    '{"text":"x","count":1e400}',
    '{"count":-0,"text":"x","data":[1e-400,-0]}',
    '{"text":"\\ud800 \\u0000","data":{"\\ud800":"\\udc00"}}',
    '{"data":{"a":1,"a":{"$ref":"s0"},"__proto__":2},"text":"x"}',
    `{"text":"x","data":${'['.repeat(70)}${']'.repeat(70)}}`,
  ),
)

const stepText = fc
  .record({
    id: fc.oneof(id, fc.constantFrom(7, '', 'bad id')),
    tool: fc.constantFrom('echo', 'echo', 'view_file', 'run_command', 'nope'),
    args: fc.option(argsText, { nil: undefined }),
    deps: fc.option(fc.array(fc.oneof(id, fc.constant(3)), { maxLength: 3 }), { nil: undefined }),
    camel: fc.boolean(),
  })
  .map(({ id: stepId, tool, args, deps, camel }) => {
    const parts = [`"id":${JSON.stringify(stepId)}`, `"tool":${JSON.stringify(tool)}`]
    if (args !== undefined) parts.push(`"args":${args}`)
    if (deps !== undefined)
      parts.push(`"${camel ? 'dependsOn' : 'depends_on'}":${JSON.stringify(deps)}`)
    return `{${parts.join(',')}}`
  })

/** A step that is no object: validateText must refuse it as validate does. */
const oddStepText = fc.constantFrom(
  'null',
  '[]',
  '[{"id":"s0","tool":"echo"}]',
  '"s0"',
  '7',
  'true',
)

const safeString = fc.stringMatching(/^[a-z ]{0,12}$/)
const safeJson = fc.jsonValue({ maxDepth: 2 }).filter((entry) => JSON.stringify(entry).length < 200)

/** The text of a step that should pass (it may still fail, e.g. on a generated JSON string). */
const goodStepText = (index: number) =>
  fc
    .record({
      kind: fc.constantFrom('echo', 'view_file', 'run_command'),
      text: safeString,
      tags: fc.array(safeString, { maxLength: 3 }),
      data: safeJson,
      count: fc.integer(),
      pick: fc.nat(),
      deps: fc.array(fc.nat(), { maxLength: 2 }),
      camel: fc.boolean(),
    })
    .chain((step) => {
      const earlier = (pick: number) => `s${pick % index}`
      const file =
        index > 0 && step.pick % 2 === 0
          ? { $ref: `${earlier(step.pick)}.output.text` }
          : 'src/a.ts'
      const entries: [string, unknown][] =
        step.kind === 'view_file'
          ? [['file', file]]
          : step.kind === 'run_command'
            ? [['command', step.pick % 2 === 0 ? 'git status' : 'ls -la src']]
            : [
                [
                  'text',
                  index > 0 && step.pick % 3 === 0 ? { $ref: earlier(step.pick) } : step.text,
                ],
                ['tags', step.tags],
                ['data', step.data],
                ['count', step.count],
                ['mode', step.pick % 2 === 0 ? 'a' : 'b'],
              ]
      const deps = index === 0 ? [] : step.deps.map(earlier)
      return fc.shuffledSubarray(entries, { minLength: entries.length }).map((shuffled) => {
        const key = step.camel ? 'dependsOn' : 'depends_on'
        return `{"id":"s${index}","tool":"${step.kind}","args":${objectText(shuffled)},"${key}":${JSON.stringify(deps)}}`
      })
    })

const goodSteps = fc
  .integer({ min: 1, max: 8 })
  .chain((size) => fc.tuple(...Array.from({ length: size }, (_, index) => goodStepText(index))))

/** Plan texts, sometimes broken: cut short or with a stray character. */
const planText = fc
  .tuple(
    fc.oneof(
      goodSteps,
      fc.array(fc.oneof(stepText, stepText, stepText, oddStepText), { minLength: 1, maxLength: 6 }),
    ),
    fc.boolean(),
    fc.nat(20),
  )
  .map(([steps, bare, cut]) => {
    const list = `[${steps.join(',')}]`
    const text = bare ? list : `{"steps":${list}}`
    return cut === 1 ? text.slice(0, -1) : cut === 2 ? `${text}x` : text
  })

/** A result as JSON text: key order and every field count. */
function textOf(result: PlanValidationResult): string {
  return JSON.stringify(result)
}

describe('PlanCompiler.validateText (properties)', () => {
  it('should give the same result, issues and hash as validate(JSON.parse(text))', () => {
    fc.assert(
      fc.property(planText, (text) => {
        let parsed: unknown
        try {
          parsed = JSON.parse(text)
        } catch {
          const result = compiler.validateText(text)
          expect(result.success).toBe(false)
          expect(result.issues.map((issue) => issue.code)).toEqual(['invalid_plan'])
          return
        }
        const expected = compiler.validate(parsed)
        const actual = compiler.validateText(text)
        expect(actual).toEqual(expected)
        expect(textOf(actual)).toBe(textOf(expected))
        expect(({} as Record<string, unknown>).polluted).toBeUndefined()
      }),
      { numRuns: 1000 },
    )
  }, 120_000)

  it('should approve some generated plans, deep-frozen like those of validate', () => {
    let approved = 0
    fc.assert(
      fc.property(planText, (text) => {
        const result = compiler.validateText(text)
        if (!result.success) return
        approved += 1
        expect(compiler.approves(result.plan)).toBe(true)
        for (const step of result.plan.steps) {
          expect(Object.isFrozen(step.args)).toBe(true)
          for (const entry of Object.values(step.args))
            if (typeof entry === 'object' && entry !== null)
              expect(Object.isFrozen(entry)).toBe(true)
        }
      }),
      { numRuns: 500 },
    )
    expect(approved).toBeGreaterThan(50)
  }, 120_000)
})
