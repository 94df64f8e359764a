import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compilerCache } from '../compile/__fixtures__/compiler-cache.js'
import type { PolicyInput } from '../schema/policy-schema.js'
import type { AuditEvent } from '../types/audit-event.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import type { PlanGuard } from '../types/plan-guard.js'
import { createPlanGuard } from './create-plan-guard.js'

const ROOT = '/srv/repo'

/** Budgets and limits of a generated policy, small enough that runs hit them. */
const policyArb = fc.record({
  maxCalls: fc.constantFrom(1, 2, 4),
  maxIdenticalCalls: fc.constantFrom(1, 2),
  maxDenials: fc.constantFrom(1, 3),
  maxCallsPerTool: fc.option(fc.constantFrom(1, 2), { nil: undefined }),
  echoCalls: fc.option(fc.constantFrom(1, 2), { nil: undefined }),
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
        args: { file: { type: 'path', access: 'write' }, content: { type: 'string' } },
      },
      run_command: { args: { command: { type: 'command' } } },
      fetch_page: {
        args: { url: { type: 'string', format: 'url' } },
        output: { trust: 'untrusted' },
      },
      echo: {
        args: { text: { type: 'string', maxLength: 12 } },
        ...(knobs.echoCalls === undefined ? {} : { maxCalls: knobs.echoCalls }),
      },
    },
    commands: { allow: ['ls', 'git', 'echo'] },
    budgets: {
      maxCalls: knobs.maxCalls,
      maxIdenticalCalls: knobs.maxIdenticalCalls,
      maxDenials: knobs.maxDenials,
      ...(knobs.maxCallsPerTool === undefined ? {} : { maxCallsPerTool: knobs.maxCallsPerTool }),
    },
  }
}

const compilerOf = compilerCache(policyOf)

const pathArb = fc.constantFrom('README.md', 'src/a.js', '../etc/passwd', '/etc/passwd', '.env')
const textArb = fc.constantFrom('hi', 'hello', 'a text longer than twelve', 'echo hi', 7)

/** One model call: allowed and refused tools, good and bad arguments, references. */
const callArb = fc.oneof(
  fc.record({ tool: fc.constant('view_file'), args: fc.record({ file: pathArb }) }),
  fc.record({
    tool: fc.constant('write_file'),
    args: fc.record({ file: pathArb, content: textArb }, { requiredKeys: ['file'] }),
  }),
  fc.record({
    tool: fc.constant('run_command'),
    args: fc.record({ command: fc.constantFrom('ls -la', 'git status', 'rm -rf /', 'ls; id') }),
  }),
  fc.record({
    tool: fc.constant('fetch_page'),
    args: fc.record({ url: fc.constantFrom('https://example.com/a', 'nope') }),
  }),
  fc.record({ tool: fc.constant('echo'), args: fc.record({ text: textArb }) }),
  fc.record({ tool: fc.constant('echo'), args: fc.constant({ text: { $ref: 'c1.output' } }) }),
  fc.record({ tool: fc.constantFrom('rm', 'view_fil'), args: fc.constant({ file: 'x' }) }),
)

/** A turn of one call, with the call id a model gives it (ids repeat across turns). */
const turnArb = fc.record({ id: fc.constantFrom('c1', 'c2', 'bad id'), call: callArb })

type Turn = typeof turnArb extends fc.Arbitrary<infer T> ? T : never

/** Runs the turns through a guard as an adapter does; every answer, in order. */
async function runTurns(guard: PlanGuard, turns: readonly Turn[]): Promise<unknown[]> {
  const answers: unknown[] = []
  for (const { id, call } of turns) {
    const submitted = guard.submitPlan({ steps: [{ id, ...call }] }, 'turn')
    answers.push(submitted)
    if (!submitted.success) continue
    const stepId = submitted.plan.order[0]
    const decision = await guard.authorize({ ...call, callId: id, stepId })
    answers.push(decision)
    if (decision.allowed) guard.complete(decision.stepId, { text: 'out' })
  }
  answers.push(guard.snapshot())
  return answers
}

function guardOf(compiler: PlanCompiler, events: AuditEvent[]): PlanGuard {
  return createPlanGuard(undefined, {
    compiler,
    checkPathsOnDisk: false,
    now: () => 0,
    audit: { write: (event) => events.push(event) },
  })
}

describe('submitPlan (turn)', () => {
  it('should decide one-call turns as the general validation does, with the same audit', async () => {
    const seen = { approved: 0, refused: 0, allowed: 0, denied: 0 }
    await fc.assert(
      fc.asyncProperty(
        policyArb,
        fc.array(turnArb, { minLength: 1, maxLength: 5 }),
        async (knobs, turns) => {
          const compiler = await compilerOf(knobs)
          // A copy of the compiler has no one-step validation: every turn takes the general path.
          const general = { ...compiler }
          const fastEvents: AuditEvent[] = []
          const generalEvents: AuditEvent[] = []
          const fast = await runTurns(guardOf(compiler, fastEvents), turns)
          const slow = await runTurns(guardOf(general, generalEvents), turns)
          expect(fast).toEqual(slow)
          expect(fastEvents).toEqual(generalEvents)
          for (const event of fastEvents) {
            if (event.type === 'plan_approved') seen.approved += 1
            if (event.type === 'plan_rejected') seen.refused += 1
            if (event.type === 'call_allowed') seen.allowed += 1
            if (event.type === 'call_denied') seen.denied += 1
          }
        },
      ),
      // Seeded: the count of each kind of decision below is then the same on every run.
      { numRuns: 400, seed: 20261204 },
    )
    // Every kind of decision was compared, not only refusals.
    for (const count of Object.values(seen)) expect(count).toBeGreaterThan(10)
  }, 60_000)
})
