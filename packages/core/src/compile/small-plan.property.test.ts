import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { flowPolicy } from '../flow/__fixtures__/flow-policy.js'
import { analyzeDependencies, orderDependencies } from './analyze-graph.js'
import type { CommandCheck } from './command-check.js'
import { createCommandCheck } from './command-check.js'
import { createPlanCompiler } from './create-plan-compiler.js'
import { LINEAR_IDS } from './step-index.js'
import { validatePlan } from './validate-plan.js'

const IDS = ['a', 'b', 'c', 'd', 'fetch', 'sum']
const idArb = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...IDS) },
  { weight: 1, arbitrary: fc.constantFrom('', 'bad id', 7, undefined) },
)
const refArb = fc.constantFrom(...IDS, 'zz').map((id) => ({ $ref: `${id}.output` }))
const textArb = fc.oneof(fc.constantFrom('hello', 'echo hi', 'https://example.com/x'), refArb)

/** A random step of the flow policy: known and unknown tools, values and `$ref`s, deps. */
const stepArb = fc.record(
  {
    id: idArb,
    tool: fc.constantFrom('fetch_page', 'summarize', 'run_command', 'write_file', 'rm'),
    args: fc.record(
      { url: textArb, text: textArb, command: textArb, file: textArb, content: textArb },
      { requiredKeys: [] },
    ),
    depends_on: fc.array(fc.constantFrom(...IDS, 'zz', 3), { maxLength: 3 }),
  },
  { requiredKeys: ['id', 'tool'] },
)

/** Mostly valid plans: unique ids, `summarize` steps that depend on and refer to earlier ones. */
const validArb = fc
  .array(fc.tuple(fc.boolean(), fc.nat(), fc.boolean()), { maxLength: LINEAR_IDS + 3 })
  .map((rows) =>
    rows.map(([refers, earlier, depends], index) => {
      const target = `s${earlier % Math.max(1, index)}`
      return {
        id: `s${index}`,
        tool: 'summarize',
        args: { text: refers && index > 0 ? { $ref: `${target}.output` } : 'hello' },
        depends_on: depends && index > 0 ? [target] : [],
      }
    }),
  )

/** Plans up to a few steps past {@link LINEAR_IDS}, so both index kinds are exercised. */
const planArb = fc.oneof(
  validArb,
  fc.array(stepArb, { maxLength: LINEAR_IDS + 3 }),
  fc.array(stepArb, { maxLength: LINEAR_IDS + 3 }).map((steps) => ({ steps })),
)

describe('validatePlan', () => {
  let policy: Awaited<ReturnType<typeof createPlanCompiler>>['policy']
  let checkCommand: CommandCheck

  beforeAll(async () => {
    policy = (await createPlanCompiler(flowPolicy('/srv/repo'))).policy
    checkCommand = (await createCommandCheck(policy)).check
  })

  it('should give small plans the same result, issues and hash with a listed or hashed id index', () => {
    let compiled = 0
    fc.assert(
      fc.property(planArb, (plan) => {
        const listed = validatePlan(policy, checkCommand, structuredClone(plan))
        const hashed = validatePlan(policy, checkCommand, structuredClone(plan), false, 0)
        expect(listed).toEqual(hashed)
        // A plan the compiler owns (parsed from text) is taken apart as it is read: same again.
        const text = JSON.stringify(plan)
        const owned = validatePlan(policy, checkCommand, JSON.parse(text), true)
        expect(owned).toEqual(validatePlan(policy, checkCommand, JSON.parse(text), true, 0))
        if (listed.success && hashed.success) {
          compiled += 1
          expect(listed.plan.hash).toBe(hashed.plan.hash)
          expect(listed.plan.levels).toEqual(hashed.plan.levels)
        }
      }),
      { numRuns: 2_000 },
    )
    expect(compiled).toBeGreaterThan(0)
  }, 60_000)
})

describe('analyzeDependencies', () => {
  it('should analyze a graph without edges exactly as the general ordering does', () => {
    for (let count = 0; count <= 20; count += 1) {
      const start = new Int32Array(count + 1)
      expect(analyzeDependencies(start, new Int32Array(0))).toEqual(
        orderDependencies(start, new Int32Array(0)),
      )
      const order = Array.from({ length: count }, (_, node) => node)
      expect(analyzeDependencies(start, new Int32Array(0))).toMatchObject({
        order,
        level: new Int32Array(count),
        criticalPathLength: count === 0 ? 0 : 1,
      })
    }
  })

  it('should use the general ordering for a graph with edges', () => {
    const graph = analyzeDependencies(Int32Array.from([0, 0, 1, 2]), Int32Array.from([0, 1]))
    expect(graph.order).toEqual([0, 1, 2])
    expect(graph.criticalPathLength).toBe(3)
  })
})
