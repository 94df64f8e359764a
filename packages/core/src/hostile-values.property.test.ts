import { checkPathLexical, PlanError } from '@plan/shell/common'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { createPlanCompiler } from './compile/create-plan-compiler.js'
import { executePlan } from './execute/execute-plan.js'
import { createPlanGuard } from './guard/create-plan-guard.js'
import { resolvePolicy } from './policy/resolve-policy.js'
import type { PolicyInput } from './schema/policy-schema.js'
import { signPlan } from './sign/sign-plan.js'
import { verifyPlan } from './sign/verify-plan.js'
import type { PlanCompiler } from './types/plan-compiler.js'

const policy: PolicyInput = {
  version: 1,
  workspace: { roots: ['/srv/repo'] },
  tools: {
    view_file: { args: { file: { type: 'path', access: 'read' } } },
    echo: {
      args: {
        text: { type: 'string', pattern: '[a-z ]*' },
        data: { type: 'json', required: false },
      },
    },
    fetch_page: { args: { url: { type: 'string', format: 'url' } } },
    run_command: { args: { command: { type: 'command' } } },
  },
  commands: { allow: ['git', 'ls'] },
}

function boom(): never {
  throw new Error('hostile getter')
}

/** Values that break naive code: throwing getters and traps, cycles, huge and non-JSON values. */
const makers: readonly (() => unknown)[] = [
  () => Object.defineProperty({}, 'steps', { get: boom, enumerable: true }),
  () => Object.defineProperty({ id: 'a', tool: 'echo' }, 'args', { get: boom, enumerable: true }),
  () =>
    new Proxy(
      {},
      { get: boom, has: boom, ownKeys: boom, getPrototypeOf: boom, getOwnPropertyDescriptor: boom },
    ),
  () => new Proxy([], { get: boom, has: boom, ownKeys: boom, getPrototypeOf: boom }),
  () => {
    const revocable = Proxy.revocable({}, {})
    revocable.revoke()
    return revocable.proxy
  },
  () => {
    const cycle: Record<string, unknown> = { id: 'a', tool: 'echo' }
    cycle.args = { text: 'x', data: cycle }
    return cycle
  },
  () => {
    const list: unknown[] = []
    list.push(list)
    return list
  },
  () => ({ toJSON: boom, id: 'a', tool: 'echo' }),
  () =>
    JSON.parse(
      '{"__proto__":{"polluted":true},"id":"a","tool":"echo","args":{"__proto__":{"x":1}}}',
    ),
  () => ({ constructor: { prototype: { polluted: true } } }),
  () => 10n,
  () => Symbol('s'),
  () => () => 1,
  () => new Date(0),
  () => new Map([['steps', []]]),
  () => Number.NaN,
  () => 'x'.repeat(2_000_000),
  () => new Array(10_000_000),
  () => {
    let deep: unknown = 'leaf'
    for (let index = 0; index < 20_000; index += 1) deep = [deep]
    return deep
  },
  () => Object.create(null),
  () => Object.create({ steps: [{ id: 'inherited', tool: 'echo' }] }),
]
// Indices, not values: a counterexample is printed, and some values are 10 million items long.
const hostile = fc.nat({ max: makers.length - 1 }).map((index) =>
  Object.assign(() => (makers[index] as () => unknown)(), {
    toString: () => `hostile #${index}`,
  }),
)

const places = fc.constantFrom('plan', 'steps', 'step', 'id', 'tool', 'args', 'arg', 'deps')

/** A plan where the part `where` is replaced by a hostile value. */
function planWith(where: string, value: unknown): unknown {
  const step: Record<string, unknown> = { id: 'a', tool: 'echo', args: { text: 'ok' } }
  if (where === 'plan') return value
  if (where === 'steps') return { steps: value }
  if (where === 'step') return { steps: [value] }
  if (where === 'args') step.args = value
  else if (where === 'arg') step.args = { text: value, data: { nested: [value] } }
  else if (where === 'deps') step.depends_on = value
  else step[where] = value
  return { steps: [step] }
}

/** The codes a plan with a hostile part is refused with: the plan's shape, never a crash. */
const HOSTILE_PLAN_CODES = [
  'budget_exceeded',
  'invalid_arguments',
  'invalid_plan',
  'missing_argument',
  'unknown_argument',
  'unknown_tool',
]

/** At least one issue, each with one of `codes`. */
function expectRefusedWith(issues: readonly { code: string }[], codes: readonly string[]): void {
  expect(issues).not.toEqual([])
  for (const issue of issues) expect(codes).toContain(issue.code)
}

function mustNotThrow<T>(name: string, run: () => T): T {
  try {
    return run()
  } catch (error) {
    throw new Error(`${name} threw ${String((error as Error)?.message ?? error)}`)
  }
}

describe('public entries (hostile values)', () => {
  let compiler: PlanCompiler
  beforeAll(async () => {
    compiler = await createPlanCompiler(policy)
  })

  it('should answer validate and the checks with issues, never a throw', () => {
    fc.assert(
      fc.property(hostile, places, (make, where) => {
        const plan = planWith(where, make())
        const result = mustNotThrow('validate', () => compiler.validate(plan))
        if (!result.success) expectRefusedWith(result.issues, HOSTILE_PLAN_CODES)
        mustNotThrow('approves', () => compiler.approves(plan))
        mustNotThrow('checkArguments', () => compiler.checkArguments('echo', plan))
        mustNotThrow('checkPath', () => compiler.checkPath(plan))
        mustNotThrow('checkPathLexical', () => checkPathLexical(plan, compiler.policy.scope))
        mustNotThrow('checkCommand', () => compiler.checkCommand(plan))
        mustNotThrow('verifyPlan', () => verifyPlan(plan as never, 'x'.repeat(32), 's'.repeat(32)))
        expect(({} as Record<string, unknown>).polluted).toBeUndefined()
      }),
      { numRuns: 300 },
    )
  }, 120_000)

  it('should answer validateText as validate(JSON.parse(text)), and a non-string with an issue', () => {
    fc.assert(
      fc.property(hostile, places, (make, where) => {
        const plan = planWith(where, make())
        const notText = mustNotThrow('validateText', () => compiler.validateText(plan as never))
        if (typeof plan !== 'string') expect(notText.issues[0]?.code).toBe('invalid_plan')
        let text: string | undefined
        try {
          text = JSON.stringify(plan)
        } catch {
          return
        }
        // Texts of ten million items are left to the non-text test above: memory, not checks.
        if (typeof text !== 'string' || text.length > 1_000_000) return
        const actual = mustNotThrow('validateText', () => compiler.validateText(text))
        expect(actual).toEqual(compiler.validate(JSON.parse(text)))
        expect(({} as Record<string, unknown>).polluted).toBeUndefined()
      }),
      { numRuns: 200 },
    )
  }, 120_000)

  it('should make compile and createPlanGuard throw only PlanErrors that carry a code', () => {
    fc.assert(
      fc.property(hostile, places, (make, where) => {
        const plan = planWith(where, make())
        for (const run of [
          () => compiler.compile(plan),
          () => createPlanGuard(plan as never, { compiler }),
        ]) {
          try {
            run()
          } catch (error) {
            expect(PlanError.isInstance(error), String((error as Error)?.message)).toBe(true)
            expect((error as PlanError).code).toMatch(/^[a-z_]+$/)
          }
        }
      }),
      { numRuns: 200 },
    )
  }, 120_000)

  it('should reject hostile plans from submitPlan with issues, never a throw', () => {
    const guard = createPlanGuard(undefined, { compiler })
    fc.assert(
      fc.property(hostile, places, (make, where) => {
        const result = mustNotThrow('submitPlan', () =>
          guard.submitPlan(planWith(where, make()), 'turn'),
        )
        // The guard is shared: a plan seen before is refused as a repeat, and after enough
        // refusals the run's denial budget is spent.
        const codes = [...HOSTILE_PLAN_CODES, 'repeated_call', 'budget_exhausted']
        if (!result.success) expectRefusedWith(result.issues, codes)
      }),
      { numRuns: 200 },
    )
  }, 120_000)

  it('should deny hostile live calls from authorize, never reject', async () => {
    const guard = createPlanGuard(
      compiler.compile([{ id: 'a', tool: 'echo', args: { text: 'ok' } }]),
      {
        compiler,
      },
    )
    await fc.assert(
      fc.asyncProperty(
        hostile,
        fc.constantFrom('call', 'tool', 'args', 'arg', 'stepId'),
        async (make, where) => {
          const value = make()
          const call =
            where === 'call'
              ? value
              : where === 'tool'
                ? { tool: value, args: { text: 'ok' } }
                : where === 'args'
                  ? { tool: 'echo', args: value }
                  : where === 'arg'
                    ? { tool: 'echo', args: { text: value } }
                    : { tool: 'echo', args: { text: 'ok' }, stepId: value }
          let result: Awaited<ReturnType<typeof guard.authorize>> | undefined
          try {
            result = await guard.authorize(call as never)
          } catch (error) {
            throw new Error(`authorize threw ${String((error as Error)?.message ?? error)}`)
          }
          expect(result.allowed).toBe(false)
        },
      ),
      { numRuns: 200 },
    )
  }, 120_000)

  it('should refuse hostile snapshots and signing input with PlanErrors only', () => {
    fc.assert(
      fc.property(hostile, places, (make, where) => {
        const value = make()
        const state = where === 'plan' ? value : { version: 1, plan: planWith(where, value) }
        for (const run of [
          () => createPlanGuard(undefined, { compiler, state: state as never }),
          () => signPlan(planWith(where, value) as never, 'k'.repeat(32)),
        ]) {
          try {
            run()
          } catch (error) {
            expect(PlanError.isInstance(error), String((error as Error)?.message)).toBe(true)
          }
        }
      }),
      { numRuns: 200 },
    )
  }, 120_000)

  it('should take hostile tool outputs and failures without throwing, and executePlan should resolve', async () => {
    await fc.assert(
      fc.asyncProperty(hostile, async (make) => {
        const plan = compiler.compile([{ id: 'a', tool: 'echo', args: { text: 'ok' } }])
        const guard = createPlanGuard(plan, { compiler })
        const decision = await guard.authorize({ tool: 'echo', args: { text: 'ok' } })
        expect(decision.allowed).toBe(true)
        mustNotThrow('complete', () => guard.complete('a', make()))
        const second = createPlanGuard(plan, { compiler })
        await second.authorize({ tool: 'echo', args: { text: 'ok' } })
        mustNotThrow('fail', () => second.fail('a', make()))
        mustNotThrow('snapshot', () => JSON.stringify(second.snapshot()))
        const result = await executePlan(plan, { echo: () => make() }, { compiler })
        expect(['completed', 'failed']).toContain(result.status)
      }),
      { numRuns: 100 },
    )
  }, 120_000)

  it('should refuse hostile policies with a PolicyError, never another throw', () => {
    fc.assert(
      fc.property(
        hostile,
        fc.constantFrom('policy', 'tools', 'tool', 'args', 'roots'),
        (make, where) => {
          const value = make()
          const input =
            where === 'policy'
              ? value
              : where === 'tools'
                ? { ...policy, tools: value }
                : where === 'tool'
                  ? { ...policy, tools: { echo: value } }
                  : where === 'args'
                    ? { ...policy, tools: { echo: { args: value } } }
                    : { ...policy, workspace: { roots: value } }
          try {
            resolvePolicy(input)
          } catch (error) {
            expect(PlanError.isInstance(error), String((error as Error)?.message)).toBe(true)
          }
        },
      ),
      { numRuns: 200 },
    )
  }, 120_000)
})
