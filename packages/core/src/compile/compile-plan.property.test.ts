import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { PlanCompilationError } from '../errors/plan-compilation-error.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import { createPlanCompiler } from './create-plan-compiler.js'

const TOOLS = ['read', 'write', 'list']
let compiler: PlanCompiler
beforeAll(async () => {
  compiler = await createPlanCompiler({
    version: 1,
    workspace: { roots: ['/srv/repo'] },
    tools: {
      read: { args: { file: { type: 'path' } } },
      write: {
        args: {
          file: { type: 'path', access: 'write' },
          content: { type: 'string', required: false },
        },
      },
      list: {},
    },
  })
})

const segment = fc.constantFrom('src', 'a', '..', '.', 'b.txt', '/etc', 'x y', '%2e', '~', '')
const pathArb = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/'))
const toolArb = fc.constantFrom(...TOOLS, 'Read', 'rm', 'read ')

/** Random plans: ids from a small alphabet (so duplicates and dangling deps happen), random deps. */
const planArb = fc.array(
  fc.record({
    id: fc.constantFrom('s0', 's1', 's2', 's3', 's4', 's5', 's6', 's7'),
    tool: toolArb,
    args: fc.record({ file: pathArb }),
    depends_on: fc.array(fc.constantFrom('s0', 's1', 's2', 's3', 's4', 's5', 's6', 's7', 'zz'), {
      maxLength: 3,
    }),
  }),
  { minLength: 1, maxLength: 8 },
)

/** The defects {@link planArb} makes, by code: ids, dependencies, tools, paths, arguments. */
const DEFECT_CODES = [
  'cyclic_dependency',
  'duplicate_step_id',
  'path_invalid',
  'path_outside_workspace',
  'self_dependency',
  'undefined_dependency',
  'unknown_argument',
  'unknown_tool',
]

/** Plans that are DAGs by construction (deps only on earlier steps), then shuffled. */
const dagArb = fc
  .integer({ min: 1, max: 40 })
  .chain((size) =>
    fc.tuple(
      fc.array(fc.array(fc.nat(), { maxLength: 4 }), { minLength: size, maxLength: size }),
      fc.shuffledSubarray(
        Array.from({ length: size }, (_, index) => index),
        { minLength: size, maxLength: size },
      ),
    ),
  )
  .map(([deps, permutation]) => {
    const steps = deps.map((picks, index) => ({
      id: `n${index}`,
      tool: 'list',
      depends_on: index === 0 ? [] : [...new Set(picks.map((pick) => `n${pick % index}`))],
    }))
    return permutation.map((index) => steps[index] as (typeof steps)[number])
  })

function assertValidOrder(
  order: readonly string[],
  steps: readonly { id: string; dependsOn: readonly string[] }[],
) {
  const position = new Map(order.map((id, index) => [id, index]))
  expect(position.size).toBe(steps.length)
  expect(order.length).toBe(steps.length)
  for (const step of steps) {
    for (const dep of step.dependsOn)
      expect(position.get(dep) as number).toBeLessThan(position.get(step.id) as number)
  }
}

describe('createPlanCompiler (properties)', () => {
  it('should approve only acyclic plans that use allowed tools, in a valid order', () => {
    fc.assert(
      fc.property(planArb, (plan) => {
        const result = compiler.validate(plan)
        if (!result.success) {
          expect(result.issues).not.toEqual([])
          for (const issue of result.issues) expect(DEFECT_CODES).toContain(issue.code)
          return
        }
        const compiled = result.plan
        for (const step of compiled.steps) expect(TOOLS).toContain(step.tool)
        assertValidOrder(compiled.order, compiled.steps)
        assertValidOrder(compiled.levels.flat(), compiled.steps)
        for (const step of compiled.steps) expect(compiled.levels[step.level]).toContain(step.id)
      }),
      { numRuns: 500 },
    )
  })

  it('should approve every DAG, with every step exactly once in order and levels', () => {
    fc.assert(
      fc.property(dagArb, (plan) => {
        const compiled = compiler.compile(plan)
        assertValidOrder(compiled.order, compiled.steps)
        assertValidOrder(compiled.levels.flat(), compiled.steps)
        expect(compiled.criticalPathLength).toBe(compiled.levels.length)
      }),
      { numRuns: 300 },
    )
  })

  it('should report a cycle whose every edge is a real dependency', () => {
    fc.assert(
      fc.property(dagArb, fc.nat(), fc.nat(), (plan, from, to) => {
        const steps = plan.map((step) => ({ ...step, depends_on: [...step.depends_on] }))
        const source = steps[from % steps.length] as (typeof steps)[number]
        const target = steps[to % steps.length] as (typeof steps)[number]
        if (source === target) return
        // Make target depend on source, and source depend on target: a cycle for sure.
        target.depends_on.push(source.id)
        source.depends_on.push(target.id)
        const result = compiler.validate(steps)
        expect(result.success).toBe(false)
        const cycles = result.issues.filter((found) => found.code === 'cyclic_dependency')
        expect(cycles.length).toBeGreaterThan(0)
        const deps = new Map(steps.map((step) => [step.id, step.depends_on]))
        for (const found of cycles) {
          const cycle = found.cycle as string[]
          expect(cycle[0]).toBe(cycle[cycle.length - 1])
          for (let index = 0; index + 1 < cycle.length; index += 1) {
            expect(deps.get(cycle[index] as string)).toContain(cycle[index + 1])
          }
        }
      }),
      { numRuns: 300 },
    )
  })

  it('should never throw anything but PlanCompilationError on garbage', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.anything(),
          fc.array(fc.anything()),
          fc.record({ steps: fc.array(fc.anything()) }),
        ),
        (garbage) => {
          try {
            compiler.compile(garbage)
          } catch (error) {
            expect(error).toBeInstanceOf(PlanCompilationError)
          }
        },
      ),
      { numRuns: 1000 },
    )
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})
