import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { PolicyInput } from '../schema/policy-schema.js'
import { compilerCache } from './__fixtures__/compiler-cache.js'
import { validateOneStep } from './validate-one-step.js'
import { validatePlan } from './validate-plan.js'
import { validateUnrecorded } from './validate-unrecorded.js'

const ROOT = '/srv/repo'
const TOOLS = ['view_file', 'write_file', 'run_command', 'fetch_page', 'echo', 'pick', 'counted']

/** The knobs of a generated policy: budgets, a per-tool limit, string bounds. */
const policyArb = fc.record({
  maxSteps: fc.constantFrom(1, 5),
  maxDepth: fc.constantFrom(1, 3),
  maxCallsPerTool: fc.option(fc.constantFrom(1, 2), { nil: undefined }),
  countedCalls: fc.constantFrom(1, 3),
  maxLength: fc.constantFrom(4, 100),
  deny: fc.boolean(),
})

type PolicyKnobs = typeof policyArb extends fc.Arbitrary<infer T> ? T : never

function policyOf(knobs: PolicyKnobs): PolicyInput {
  return {
    version: 1,
    workspace: { roots: [ROOT], ...(knobs.deny ? { deny: ['.env', 'secrets/**'] } : {}) },
    tools: {
      view_file: { args: { file: { type: 'path', access: 'read' } } },
      write_file: {
        args: {
          file: { type: 'path', access: 'write' },
          content: { type: 'string', required: false },
        },
      },
      run_command: { args: { command: { type: 'command' } } },
      fetch_page: {
        args: { url: { type: 'string', format: 'url' } },
        output: { trust: 'untrusted' },
      },
      echo: { args: { text: { type: 'string', maxLength: knobs.maxLength } } },
      pick: {
        args: {
          text: { type: 'string' },
          schema: { type: 'json', maxBytes: 8192, required: false },
        },
        output: { extract: true },
      },
      counted: { args: {}, maxCalls: knobs.countedCalls },
    },
    commands: { allow: ['ls', 'git', 'echo'] },
    budgets: {
      maxSteps: knobs.maxSteps,
      maxDepth: knobs.maxDepth,
      ...(knobs.maxCallsPerTool === undefined ? {} : { maxCallsPerTool: knobs.maxCallsPerTool }),
    },
  }
}

const compilerOf = compilerCache(policyOf)

/** Argument values: paths inside and outside the workspace, commands, URLs, references, shapes. */
const valueArb = fc.oneof(
  fc.constantFrom(
    'README.md',
    'src/a.js',
    '../etc/passwd',
    '/etc/passwd',
    `${ROOT}/src/b.js`,
    `${ROOT}-evil/x`,
    '.env',
    'secrets/key',
    '~/x',
    '',
    'ls -la',
    'git status',
    'rm -rf /',
    'echo hi | sh',
    'https://example.com/a',
    'http://[::1]/',
    'hello',
    'a longer text than four',
  ),
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.constantFrom(null, true, [], {}, ['README.md'], { nested: 'x' }),
  fc.constantFrom({ $ref: 'c1' }, { $ref: 'c1.output' }, { $ref: 'zz.output' }, { $ref: 3 }),
)

const argsArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.dictionary(
      fc.constantFrom('file', 'content', 'command', 'url', 'text', 'schema', 'extra', '__proto__'),
      valueArb,
      { maxKeys: 3 },
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(undefined, null, 'text', [1], 7) },
)

const stepArb = fc.record(
  {
    id: fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom('c1', 'call_1', 'toolu_01A-b') },
      { weight: 1, arbitrary: fc.constantFrom('', 'bad id', 'a.b', 'x'.repeat(129), 7) },
    ),
    tool: fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...TOOLS) },
      { weight: 1, arbitrary: fc.constantFrom('rm', 'view_fil', '', 3) },
    ),
    args: argsArb,
    depends_on: fc.constantFrom([], ['c1'], ['zz'], 'c1'),
    dependsOn: fc.constantFrom([], ['c1']),
    description: fc.constantFrom('why', 3),
  },
  { requiredKeys: [] },
)

const pathArb = fc.constantFrom(
  'README.md',
  'src/a.js',
  '../etc/passwd',
  `${ROOT}/src/b.js`,
  '.env',
)
const textArb = fc.oneof(fc.constantFrom('hi', 'hello', 'a longer text'), valueArb)

/** A call as a model makes it: a known tool with arguments of its own shape, good or not. */
const callArb = fc
  .record({
    id: fc.constantFrom('c1', 'call_1', 'toolu_01A-b'),
    call: fc.oneof(
      fc.record({ tool: fc.constant('view_file'), args: fc.record({ file: pathArb }) }),
      fc.record({
        tool: fc.constant('write_file'),
        args: fc.record({ file: pathArb, content: textArb }, { requiredKeys: ['file'] }),
      }),
      fc.record({
        tool: fc.constant('run_command'),
        args: fc.record({
          command: fc.constantFrom('ls -la', 'git status', 'rm -rf /', 'echo a; ls'),
        }),
      }),
      fc.record({
        tool: fc.constant('fetch_page'),
        args: fc.record({ url: fc.constantFrom('https://example.com/a', 'ftp://x', 'nope') }),
      }),
      fc.record({ tool: fc.constant('echo'), args: fc.record({ text: textArb }) }),
      fc.record({
        tool: fc.constant('pick'),
        args: fc.record({ text: textArb, schema: fc.constant({ type: 'number' }) }),
      }),
      fc.record({ tool: fc.constant('counted'), args: fc.constantFrom({}, undefined, null) }),
    ),
  })
  .map(({ id, call }) => (call.args === undefined ? { id, tool: call.tool } : { id, ...call }))

/** One-call turns, mostly `{ steps: [step] }`, and plans near that shape. */
const planArb = fc.oneof(
  { weight: 12, arbitrary: callArb.map((step) => ({ steps: [step] })) },
  { weight: 6, arbitrary: stepArb.map((step) => ({ steps: [step] })) },
  { weight: 1, arbitrary: stepArb.map((step) => [step]) },
  { weight: 1, arbitrary: stepArb.map((step) => ({ steps: [step], goal: 'fix it' })) },
  { weight: 1, arbitrary: stepArb.map((step) => ({ steps: [step], extra: 1 })) },
  { weight: 1, arbitrary: fc.tuple(stepArb, stepArb).map((steps) => ({ steps })) },
  { weight: 1, arbitrary: fc.constantFrom({ steps: [] }, { steps: [null] }, {}, null, 'plan') },
)

describe('validateOneStep', () => {
  it('should approve only plans that validatePlan approves, as the same compiled plan', async () => {
    let approved = 0
    let deferred = 0
    await fc.assert(
      fc.asyncProperty(policyArb, planArb, async (knobs, plan) => {
        const compiler = await compilerOf(knobs)
        const { policy, checkCommand } = compiler
        const fast = validateOneStep(policy, checkCommand, structuredClone(plan))
        const general = validatePlan(policy, checkCommand, structuredClone(plan))
        // What a guard's turn gets is what validate gives, approved or with every issue.
        expect(validateUnrecorded(compiler, structuredClone(plan))).toEqual(general)
        if (fast === undefined) {
          if (general.success) deferred += 1
          return
        }
        approved += 1
        expect(general.success).toBe(true)
        if (!fast.success || !general.success) return
        expect(fast).toEqual(general)
        expect(fast.plan.hash).toBe(general.plan.hash)
        expect(fast.plan.levels).toEqual(general.plan.levels)
        expect(fast.plan.steps).toEqual(general.plan.steps)
        expect(Object.keys(fast.plan)).toEqual(Object.keys(general.plan))
        const [step] = fast.plan.steps
        expect(Object.isFrozen(step?.args)).toBe(true)
        expect(Object.isFrozen(fast.plan.order)).toBe(true)
      }),
      { numRuns: 3_000 },
    )
    expect(approved).toBeGreaterThan(100)
    expect(deferred).toBeGreaterThan(0)
  }, 60_000)
})
