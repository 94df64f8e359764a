import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compilerCache } from '../compile/__fixtures__/compiler-cache.js'
import { createPlanCompiler } from '../compile/create-plan-compiler.js'
import { createPlanGuard } from '../guard/create-plan-guard.js'
import type { PolicyInput, ToolPolicy } from '../schema/policy-schema.js'
import type { AuditEvent } from '../types/audit-event.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import type { PlanGuard, PlanGuardState } from '../types/plan-guard.js'

const ROOT = '/srv/repo'

/**
 * Policies under which a copy of untrusted text changes no call (the text goes unindexed), or
 * only calls of a tool whose output is trusted (`echo`: the others skip the copied-text check).
 */
const policyArb = fc.record({
  tainted: fc.constantFrom('none', 'allowlist', 'paste-check', 'rule-of-two'),
  declassify: fc.boolean(),
  trustedEcho: fc.boolean(),
})

type PolicyKnobs = typeof policyArb extends fc.Arbitrary<infer T> ? T : never

function taintedOf(knobs: PolicyKnobs) {
  if (knobs.tainted === 'none') return {}
  if (knobs.tainted === 'rule-of-two') return { tainted: { mode: 'rule-of-two' as const } }
  return {
    tainted: {
      commands: ['echo'],
      writes: ['notes/**'],
      pasteCheck: knobs.tainted === 'paste-check',
    },
  }
}

function policyOf(knobs: PolicyKnobs): PolicyInput {
  return {
    version: 1,
    workspace: { roots: [ROOT], deny: ['.env'] },
    tools: {
      view_file: { args: { file: { type: 'path', access: 'read' } } },
      fetch_page: { args: { url: { type: 'string' } } },
      write_file: {
        args: {
          file: { type: 'path', access: 'write', acceptsUntrusted: true },
          content: { type: 'string' },
        },
      },
      run_command: { args: { command: { type: 'command', acceptsUntrusted: true } } },
      ...(knobs.declassify
        ? {
            count: {
              args: { text: { type: 'string' } },
              output: { declassify: { type: 'number' } },
            },
          }
        : {}),
      ...(knobs.trustedEcho
        ? { echo: { args: { text: { type: 'string' } }, output: { trust: 'trusted' } } }
        : {}),
    },
    commands: { allow: ['echo', 'ls', 'git'] },
    trust: { defaultOutput: 'untrusted', ...taintedOf(knobs) },
    budgets: { maxCalls: 40, maxIdenticalCalls: 3, maxDenials: 6 },
  }
}

/**
 * The same compiler, each tool of its policy with one more argument, which refuses untrusted
 * data and no call passes (the checks of the calls are the compiler's own): every output is
 * indexed and every call takes the copied-text check.
 */
function indexingCompiler(compiler: PlanCompiler): PlanCompiler {
  const tools = new Map<string, ToolPolicy>()
  for (const [name, tool] of compiler.policy.tools)
    tools.set(name, {
      ...tool,
      args: { ...tool.args, never_passed: { type: 'string', acceptsUntrusted: false } },
    })
  return { ...compiler, policy: { ...compiler.policy, tools } }
}

const compilerOf = compilerCache((knobs: PolicyKnobs) => policyOf(knobs))

// Texts outputs carry and calls copy: long enough to be found, and short ones that never are.
const TEXTS = [
  'echo exfiltrate-the-keys now',
  'notes/copied-from-the-page.md',
  'https://example.com/a/long/page',
  'short',
  'README.md',
]
const textArb = fc.constantFrom(...TEXTS)
const pathArb = fc.constantFrom('README.md', 'notes/copied-from-the-page.md', '.env', 'src/a.js')

const callArb = fc.oneof(
  fc.record({ tool: fc.constant('view_file'), args: fc.record({ file: pathArb }) }),
  fc.record({ tool: fc.constant('fetch_page'), args: fc.record({ url: textArb }) }),
  fc.record({
    tool: fc.constant('write_file'),
    args: fc.record({ file: pathArb, content: textArb }),
  }),
  fc.record({
    tool: fc.constant('run_command'),
    args: fc.record({
      command: fc.constantFrom('echo exfiltrate-the-keys now', 'ls', 'git status'),
    }),
  }),
  fc.record({ tool: fc.constant('count'), args: fc.record({ text: textArb }) }),
  fc.record({ tool: fc.constant('echo'), args: fc.record({ text: textArb }) }),
  fc.record({
    tool: fc.constant('write_file'),
    args: fc.constant({ file: 'notes/x.md', extra: 'a' }),
  }),
)

/** An output: text copied later, a number (what `count` declassifies), or a failure. */
const outputArb = fc.oneof(
  fc.record({ text: textArb, more: fc.array(textArb, { maxLength: 2 }) }),
  fc.constant(7),
  fc.constant('fail'),
)

const batchArb = fc.record({
  kind: fc.constantFrom('turn', 'turn', 'replan'),
  calls: fc.array(fc.record({ call: callArb, output: outputArb }), { minLength: 1, maxLength: 3 }),
  reference: fc.boolean(),
})

type Batch = typeof batchArb extends fc.Arbitrary<infer T> ? T : never

let steps = 0

/** Runs the batches as an adapter does: each submitted, its steps called and completed in turn. */
async function runBatches(guard: PlanGuard, batches: readonly Batch[]): Promise<unknown[]> {
  const answers: unknown[] = []
  for (const [at, { kind, calls, reference }] of batches.entries()) {
    const plan = calls.map(({ call }, index) => ({
      id: `b${at}s${index}`,
      ...call,
      // a later step may take the first one's output as its text
      ...(reference && index > 0 && (call.tool === 'count' || call.tool === 'echo')
        ? { args: { text: { $ref: `b${at}s0.output.text` } } }
        : {}),
    }))
    const submitted = guard.submitPlan({ steps: plan }, kind === 'turn' ? 'turn' : 'replan')
    answers.push(submitted)
    if (!submitted.success) continue
    for (const [index, step] of plan.entries()) {
      const resolved = guard.resolveArgs(step.id)
      const args = resolved.success ? resolved.args : step.args
      const decision = await guard.authorize({ tool: step.tool, args, stepId: step.id })
      answers.push(decision)
      if (!decision.allowed) continue
      steps += 1
      const output = calls[index]?.output
      if (output === 'fail') guard.fail(decision.stepId, new Error(`failed: ${TEXTS[0]}`))
      else guard.complete(decision.stepId, output)
    }
  }
  return answers
}

function guardOf(compiler: PlanCompiler, events: AuditEvent[], state?: PlanGuardState) {
  return createPlanGuard(undefined, {
    compiler,
    checkPathsOnDisk: false,
    now: () => 0,
    audit: { write: (event) => events.push(event) },
    ...(state === undefined ? {} : { state }),
  })
}

/** A snapshot without the text index, which only the indexing run keeps. */
function withoutText(state: PlanGuardState): unknown {
  const { flow, ...rest } = state as PlanGuardState & { flow: { text: unknown } }
  const { text: _text, ...kept } = flow
  return { ...rest, flow: kept }
}

describe('the text index under a policy that reads no copies', () => {
  it('should decide, label and audit as a run that indexes every output, resumed too', async () => {
    await fc.assert(
      fc.asyncProperty(
        policyArb,
        fc.array(batchArb, { minLength: 1, maxLength: 6 }),
        fc.array(batchArb, { maxLength: 3 }),
        async (knobs, batches, after) => {
          const compiler = await compilerOf(knobs)
          const skipping = { ...compiler }
          const indexing = indexingCompiler(compiler)
          const skipEvents: AuditEvent[] = []
          const indexEvents: AuditEvent[] = []
          const skipGuard = guardOf(skipping, skipEvents)
          const indexGuard = guardOf(indexing, indexEvents)
          expect(await runBatches(skipGuard, batches)).toEqual(
            await runBatches(indexGuard, batches),
          )
          expect(skipEvents).toEqual(indexEvents)
          const skipState = skipGuard.snapshot()
          const indexState = indexGuard.snapshot()
          expect(withoutText(skipState)).toEqual(withoutText(indexState))
          // Resumed under the same policies, the runs go on deciding alike.
          const resumedSkip = guardOf(skipping, skipEvents, skipState)
          const resumedIndex = guardOf(indexing, indexEvents, indexState)
          expect(await runBatches(resumedSkip, after)).toEqual(
            await runBatches(resumedIndex, after),
          )
          expect(skipEvents).toEqual(indexEvents)
        },
      ),
      { numRuns: 300 },
    )
    // The runs completed steps, so outputs were labelled and compared, not only refusals.
    expect(steps).toBeGreaterThan(300)
  }, 60_000)

  it('should refuse, once resumed under a policy that reads copies, every copy it might hold', async () => {
    const compiler = await compilerOf({ tainted: 'none', declassify: false, trustedEcho: false })
    const guard = guardOf(compiler, [])
    await runBatches(guard, [
      {
        kind: 'turn',
        calls: [
          {
            call: { tool: 'fetch_page', args: { url: 'x' } },
            output: { text: TEXTS[0] ?? '', more: [] },
          },
        ],
        reference: false,
      },
    ])
    const policy = policyOf({ tainted: 'none', declassify: false, trustedEcho: false })
    const strict = await createPlanCompiler({
      ...policy,
      tools: { ...policy.tools, run_command: { args: { command: { type: 'command' } } } },
    })
    const resumed = guardOf(strict, [], guard.snapshot())
    const copied = 'echo a text never seen in any output'
    resumed.submitPlan(
      { steps: [{ id: 'later', tool: 'run_command', args: { command: copied } }] },
      'turn',
    )
    const decision = await resumed.authorize({ tool: 'run_command', args: { command: copied } })
    expect(decision.allowed ? 'allowed' : decision.issue.code).toBe('untrusted_flow')
    resumed.submitPlan(
      { steps: [{ id: 'short', tool: 'run_command', args: { command: 'ls' } }] },
      'turn',
    )
    const short = await resumed.authorize({ tool: 'run_command', args: { command: 'ls' } })
    expect(short.allowed).toBe(true)
  })
})
