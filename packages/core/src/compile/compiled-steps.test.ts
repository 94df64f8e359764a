import { PlanError } from '@plan/shell/common'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import type { CompiledPlan } from '../types/compiled-plan.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import { hashSourceOf } from './__fixtures__/hash-source-of.js'
import { createPlanCompiler } from './create-plan-compiler.js'
import { PlanHasher } from './plan-hasher.js'

// A compiled plan's steps are made from the compiler's columns when first read: they must be
// the same objects at every read, deep-frozen, and hash as the plan does.
let compiler: PlanCompiler
beforeAll(async () => {
  compiler = await createPlanCompiler({
    version: 1,
    workspace: { roots: ['/srv/repo'] },
    tools: {
      view_file: { args: { file: { type: 'path', access: 'read' } } },
      write_file: {
        args: { file: { type: 'path', access: 'write' }, content: { type: 'string' } },
      },
    },
    budgets: { maxSteps: 2_000 },
  })
})

/** A plan of `size` steps; `picks` choose each step's dependencies and reference among earlier ones. */
function planOf(size: number, picks: readonly (readonly number[])[]): unknown[] {
  return Array.from({ length: size }, (_, index) => {
    const choose = picks[index % picks.length] ?? []
    const earlier = choose.filter(() => index > 0).map((pick) => `s${pick % Math.max(index, 1)}`)
    const [source, ...dependencies] = earlier
    return source !== undefined && index % 2 === 0
      ? {
          id: `s${index}`,
          tool: 'write_file',
          args: { file: `out/${index}.txt`, content: { $ref: `${source}.output.text` } },
          depends_on: dependencies,
        }
      : {
          id: `s${index}`,
          tool: 'view_file',
          args: { file: `src/${index}.ts` },
          dependsOn: earlier,
        }
  })
}

/** Every object under `value` that is not frozen, by path. */
function unfrozen(value: unknown, path = 'plan', found: string[] = []): string[] {
  if (typeof value !== 'object' || value === null) return found
  if (!Object.isFrozen(value)) found.push(path)
  for (const [key, child] of Object.entries(value)) unfrozen(child, `${path}.${key}`, found)
  return found
}

/** The steps as the plan states them, from its text alone. */
function expectedSteps(plan: unknown[], compiled: CompiledPlan) {
  return plan.map((raw, index) => {
    const step = raw as { id: string; tool: string; depends_on?: string[]; dependsOn?: string[] }
    const args = (raw as { args: Record<string, unknown> }).args
    const content = args.content as { $ref: string } | undefined
    const referenced = content === undefined ? [] : [content.$ref.split('.')[0] as string]
    const dependsOn = [...new Set([...(step.depends_on ?? step.dependsOn ?? []), ...referenced])]
    const levels = dependsOn.map((id) => compiled.steps.find((other) => other.id === id)?.level)
    return {
      id: step.id,
      index,
      tool: step.tool,
      args,
      dependsOn,
      references: referenced.map((stepId) => ({
        path: ['content'],
        stepId,
        field: ['text'],
      })),
      level: levels.length === 0 ? 0 : Math.max(...(levels as number[])) + 1,
    }
  })
}

describe('CompiledPlan.steps', () => {
  it('should be the plan as submitted, deep-frozen, the same objects at every read', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.array(fc.array(fc.nat(80), { maxLength: 4 }), { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        (size, picks, hashFirst) => {
          const plan = planOf(size, picks)
          const compiled = compiler.compile(structuredClone(plan))
          const hash = hashFirst ? compiled.hash : undefined
          const steps = compiled.steps
          expect(compiled.steps).toBe(steps)
          expect(compiled.steps[0]).toBe(steps[0])
          expect(steps).toEqual(expectedSteps(plan, compiled))
          expect(unfrozen(compiled)).toEqual([])
          expect(compiled.hash).toBe(hash ?? compiled.hash)
          // The hash read from the columns is the hash of the step objects.
          expect(new PlanHasher(hashSourceOf(steps)).digest()).toBe(compiled.hash)
        },
      ),
      { numRuns: 150 },
    )
  })

  it('should give the steps that depend on one step alone the same frozen list', () => {
    const compiled = compiler.compile([
      { id: 'a', tool: 'view_file', args: { file: 'a' } },
      { id: 'b', tool: 'view_file', args: { file: 'b' }, depends_on: ['a'] },
      { id: 'c', tool: 'write_file', args: { file: 'c', content: { $ref: 'a.output.text' } } },
      { id: 'd', tool: 'view_file', args: { file: 'd' }, depends_on: ['b'] },
    ])
    const [a, b, c, d] = compiled.steps
    expect(a?.dependsOn).toEqual([])
    expect(c?.dependsOn).toBe(b?.dependsOn)
    expect(d?.dependsOn).toEqual(['b'])
  })

  it('should be an enumerable key that copies keep and that cannot be replaced', () => {
    const compiled = compiler.compile([
      { id: 'a', tool: 'view_file', args: { file: 'a' } },
      { id: 'b', tool: 'view_file', args: { file: 'b' }, depends_on: ['a'] },
    ])
    for (const copy of [
      JSON.parse(JSON.stringify(compiled)),
      { ...compiled },
      structuredClone(compiled),
    ])
      expect(copy.steps).toEqual(compiled.steps)
    expect(() => {
      ;(compiled as { steps: unknown }).steps = []
    }).toThrow(TypeError)
    expect(() => Object.defineProperty(compiled, 'steps', { value: [] })).toThrow(TypeError)
    expect(compiled.steps.map((step) => step.id)).toEqual(['a', 'b'])
  })
})

/** Runs `body` with an index accessor on `prototype` for indices 0 to 7: reads give `forged`, writes are dropped. */
function withPollutedIndices(prototype: object, forged: unknown, body: () => void): void {
  const indices = Array.from({ length: 8 }, (_, index) => String(index))
  for (const index of indices)
    Object.defineProperty(prototype, index, {
      configurable: true,
      get: () => forged,
      set: () => {},
    })
  try {
    body()
  } finally {
    for (const index of indices) delete (prototype as Record<string, unknown>)[index]
  }
}

describe('CompiledPlan.steps and hash with index accessors on built-in prototypes', () => {
  const plan = [
    { id: 'a', tool: 'view_file', args: { file: 'a' } },
    { id: 'b', tool: 'write_file', args: { file: 'b', content: 'x' }, depends_on: ['a'] },
    { id: 'c', tool: 'view_file', args: { file: 'c' }, depends_on: ['a', 'b'] },
  ]
  const forged = Object.freeze({ id: 'b', tool: 'write_file', args: { file: '/etc/passwd' } })

  it.each([
    ['Array.prototype', Array.prototype],
    ['Object.prototype', Object.prototype],
  ])(
    'should give the steps and the hash of the columns or a PlanError, never others, with %s polluted',
    (_name, prototype) => {
      const expected = compiler.compile(structuredClone(plan))
      const clean = { hash: expected.hash, steps: JSON.stringify(expected.steps) }
      const hashedFirst = compiler.compile(structuredClone(plan))
      const stepsFirst = compiler.compile(structuredClone(plan))
      const other = () => compiler.compile([{ id: 'x', tool: 'view_file', args: { file: 'x' } }])
      const otherPlan = other()
      const read = (get: () => unknown): unknown => {
        try {
          return get()
        } catch (error) {
          return PlanError.isInstance(error) ? error.code : error
        }
      }
      let seen: Record<string, unknown> = {}
      withPollutedIndices(prototype, forged, () => {
        seen = {
          hash: read(() => hashedFirst.hash),
          steps: read(() => JSON.stringify(stepsFirst.steps)),
          other: read(() => otherPlan.hash),
        }
      })
      expect([clean.hash, 'internal_error']).toContain(seen.hash)
      expect([clean.steps, 'internal_error']).toContain(seen.steps)
      expect([other().hash, 'internal_error']).toContain(seen.other)
      // Nothing half-built was kept: once the prototype is clean, every read is the plan's.
      expect(hashedFirst.hash).toBe(clean.hash)
      expect(JSON.stringify(stepsFirst.steps)).toBe(clean.steps)
      expect(new PlanHasher(hashSourceOf(stepsFirst.steps)).digest()).toBe(clean.hash)
      expect(otherPlan.hash).toBe(other().hash)
      expect(otherPlan.hash).not.toBe(clean.hash)
    },
  )

  it('should let nothing reachable from a plan change another plan or its own steps', () => {
    const compiled = compiler.compile(structuredClone(plan))
    const alone = () => compiler.compile([{ id: 'x', tool: 'view_file', args: { file: 'x' } }])
    const before = {
      own: compiled.hash,
      other: alone().hash,
      steps: JSON.stringify(compiled.steps),
    }
    for (const symbol of Object.getOwnPropertySymbols(compiled)) {
      const source = (compiled as unknown as Record<symbol, Record<string, unknown>>)[symbol]
      let filled = 0
      for (const part of [source, ...Object.values(source ?? {})]) {
        const fill = (part as { fill?: (node: number, step: object) => void }).fill
        if (fill === undefined) continue
        // Step "a" has no dependencies: what it is given for them must not be writable.
        const step = { dependsOn: [] as string[] }
        fill.call(part, 0, step)
        expect(() => (step.dependsOn as string[]).push('b')).toThrow(TypeError)
        filled += 1
      }
      // What a plan is made from can be reached: the check above must have tried it.
      expect(filled).toBeGreaterThan(0)
    }
    expect(compiled.hash).toBe(before.own)
    expect(alone().hash).toBe(before.other)
    expect(JSON.stringify(compiled.steps)).toBe(before.steps)
    const steps = Object.getOwnPropertyDescriptor(compiled, 'steps')?.get
    const hash = Object.getOwnPropertyDescriptor(compiled, 'hash')?.get
    expect(() => steps?.call({})).toThrow(TypeError)
    expect(() => hash?.call(Object.create(compiled))).toThrow(TypeError)
  })
})
