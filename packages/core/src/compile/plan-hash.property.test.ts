import { hashJson } from '@plan/json'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import type { CompiledPlan } from '../types/compiled-plan.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import { createPlanCompiler } from './create-plan-compiler.js'

let compiler: PlanCompiler
beforeAll(async () => {
  compiler = await createPlanCompiler({
    version: 1,
    workspace: { roots: ['/srv/repo'] },
    tools: {
      view_file: { args: { file: { type: 'path', access: 'read' } } },
      write_file: {
        args: {
          file: { type: 'path', access: 'write' },
          content: { type: 'string', required: false },
        },
      },
      store: {
        args: {
          data: { type: 'json' },
          tags: { type: 'array', items: { type: 'string' }, required: false },
        },
      },
    },
    budgets: { maxSteps: 5_000, maxDepth: 5_000, maxFanOut: 5_000 },
  })
})

/** The reference: SHA-256 of the canonical JSON of `{ steps, version: 1 }`, deps sorted and unique. */
function referenceHash(plan: CompiledPlan): string {
  return hashJson({
    version: 1,
    steps: plan.steps.map((step) => ({
      id: step.id,
      tool: step.tool,
      args: step.args,
      dependsOn: [...new Set(step.dependsOn)].sort(),
    })),
  })
}

const text = fc.oneof(
  fc.constantFrom('src/a.ts', 'a "quoted" b', 'back\\slash', 'é\u2028\u{1F600}', '\ud800', ''),
  fc.string({ maxLength: 12, unit: 'binary' }),
)

/** A step that can pass, reading only earlier steps: `index` is its position in the plan. */
const stepAt = (index: number) =>
  fc
    .record({
      kind: fc.constantFrom('view_file', 'write_file', 'store'),
      picks: fc.array(fc.nat(), { maxLength: 4 }),
      data: fc.jsonValue({ maxDepth: 2 }),
      tags: fc.array(text, { maxLength: 3 }),
      content: text,
      reference: fc.boolean(),
    })
    .map(({ kind, picks, data, tags, content, reference }) => {
      const earlier = picks.map((pick) => `s${pick % Math.max(index, 1)}`)
      const depends_on = index === 0 ? [] : earlier
      const source = index > 0 && reference ? { $ref: `${earlier[0] ?? 's0'}.output.text` } : null
      const args =
        kind === 'view_file'
          ? { file: `src/f${index}.ts` }
          : kind === 'write_file'
            ? { file: `out/f${index}.ts`, content: source ?? content }
            : { tags, data: source ?? data }
      return { id: `s${index}`, tool: kind, args, depends_on }
    })

const planOf = (maxSize: number) =>
  fc
    .integer({ min: 1, max: maxSize })
    .chain((size) => fc.tuple(...Array.from({ length: size }, (_, index) => stepAt(index))))

describe('CompiledPlan.hash (properties)', () => {
  it('should equal the SHA-256 of the canonical JSON form, from validate and validateText', () => {
    let approved = 0
    fc.assert(
      fc.property(planOf(12), (steps) => {
        const result = compiler.validate(steps)
        const fromText = compiler.validateText(JSON.stringify({ steps }))
        expect(fromText.success).toBe(result.success)
        if (!result.success || !fromText.success) return
        approved += 1
        const expected = referenceHash(result.plan)
        expect(result.plan.hash).toBe(expected)
        expect(fromText.plan.hash).toBe(expected)
      }),
      { numRuns: 300 },
    )
    expect(approved).toBeGreaterThan(100)
  })

  it('should equal it for plans larger than one chunk of hashed steps', () => {
    fc.assert(
      fc.property(fc.integer({ min: 500, max: 1_100 }), fc.nat(), (size, seed) => {
        const steps = Array.from({ length: size }, (_, index) => ({
          id: `s${index}`,
          tool: index % 2 === 0 ? 'view_file' : 'write_file',
          args:
            index % 2 === 0
              ? { file: `src/f${index}.ts` }
              : { content: { $ref: `s${(seed + index) % index}.output.text` }, file: `o/${index}` },
          depends_on: index < 3 ? [] : [`s${(seed * 7 + index) % index}`, `s${index - 3}`],
        }))
        const result = compiler.validateText(JSON.stringify(steps))
        if (!result.success) throw new Error(result.issues[0]?.message)
        expect(result.plan.hash).toBe(referenceHash(result.plan))
      }),
      { numRuns: 8 },
    )
  })
})

describe('plan hash with a polluted prototype', () => {
  it('should not let a toJSON on Object.prototype or Array.prototype decide the hash', () => {
    const plans = ['a.txt', 'b.txt'].map((file) =>
      compiler.validate({ steps: [{ id: 'read', tool: 'view_file', args: { file } }] }),
    )
    const clean = plans.map((result) => (result.success ? referenceHash(result.plan) : ''))
    expect(clean[0]).not.toBe(clean[1])
    for (const prototype of [Object.prototype, Array.prototype]) {
      const fresh = ['a.txt', 'b.txt'].map((file) =>
        compiler.validate({ steps: [{ id: 'read', tool: 'view_file', args: { file } }] }),
      )
      Object.defineProperty(prototype, 'toJSON', { value: () => 'same', configurable: true })
      try {
        expect(fresh.map((result) => (result.success ? result.plan.hash : ''))).toEqual(clean)
      } finally {
        delete (prototype as { toJSON?: unknown }).toJSON
      }
    }
  })
})
