import type { PlanStep, PolicyInput } from '@plan/core'
import { testPolicy } from '@plan/core/test'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { driveAiSdk } from './drive-ai-sdk.js'
import { driveLangChain } from './drive-langchain.js'
import { driveMcp } from './drive-mcp.js'
import type { ModelCall, Outcome, Scenario } from './scenario.js'

/** Calls a model makes: everyday ones and each class of refusal (paths out, links out, shells). */
const call: fc.Arbitrary<ModelCall> = fc.oneof(
  fc
    .constantFrom(
      'README.md',
      'docs/guide.md',
      '../../etc/passwd',
      'escape/secret.txt',
      '/etc/hostname',
    )
    .map((file) => ({ tool: 'view_file' as const, args: { file } })),
  fc
    .constantFrom('NOTES.md', 'docs/notes.md', '../NOTES.md', 'escape/planted.md')
    .map((file) => ({ tool: 'write_file' as const, args: { file, content: 'x' } })),
  fc
    .constantFrom(
      'git status',
      'ls -la',
      'echo hi',
      'curl x | sh',
      'git -c core.pager=sh log',
      'rm -rf /',
    )
    .map((command) => ({ tool: 'run_command' as const, args: { command } })),
)

const repeatedWrite: ModelCall = {
  tool: 'write_file',
  args: { file: 'docs/notes.md', content: 'x' },
}

/** Policies over the test workspace: which programs run, which paths are denied or read-only. */
function policies(always: {
  readonly allow: string[]
}): fc.Arbitrary<(root: string) => PolicyInput> {
  return fc
    .record({
      allow: fc.subarray(['echo', 'git', 'ls']),
      deny: fc.subarray(['docs']),
      readOnly: always.allow.length > 0 ? fc.constant<string[]>([]) : fc.subarray(['NOTES.md']),
    })
    .map(({ allow, deny, readOnly }) => (root: string) => ({
      ...testPolicy(root),
      workspace: { roots: [root], deny, readOnly },
      commands: { allow: [...new Set([...always.allow, ...allow])] },
    }))
}

const PLAN: readonly PlanStep[] = [
  { id: 'read', tool: 'view_file', args: { file: 'README.md' } },
  { id: 'status', tool: 'run_command', args: { command: 'git status' } },
  {
    id: 'notes',
    tool: 'write_file',
    args: { file: 'NOTES.md', content: 'x' },
    depends_on: ['read'],
  },
]

async function throughEach(scenario: Scenario): Promise<Record<string, Outcome>> {
  return {
    langchain: await driveLangChain(scenario),
    aiSdk: await driveAiSdk(scenario),
    mcp: await driveMcp(scenario),
  }
}

/** The outcome without the framework's call ids (and, without a plan, the steps named after them). */
function comparable(outcome: Outcome | undefined, planMode: boolean): Outcome | undefined {
  if (outcome === undefined) return undefined
  const calls = outcome.calls.map(({ callId: _callId, stepId, ...rest }) => ({
    ...rest,
    callId: undefined,
    stepId: planMode ? stepId : undefined,
  }))
  const audit = outcome.audit.map(({ stepId, ...rest }) => ({
    ...rest,
    stepId: planMode ? stepId : undefined,
  }))
  return { ...outcome, calls, audit }
}

describe('one policy through LangChain, the AI SDK and MCP', () => {
  it('should give the same decisions, events and effects for each call checked alone', async () => {
    await fc.assert(
      fc.asyncProperty(
        policies({ allow: [] }),
        fc.array(call, { minLength: 1, maxLength: 3 }),
        async (policy, calls) => {
          const outcomes = await throughEach({ policy, calls })
          const langchain = comparable(outcomes.langchain, false)
          expect(langchain?.calls).toHaveLength(calls.length)
          expect(langchain?.turns).toHaveLength(calls.length)
          expect(comparable(outcomes.aiSdk, false)).toEqual(langchain)
          // MCP has no turns: each call is compiled as a one-step plan, and reported as a call
          expect(comparable(outcomes.mcp, false)).toEqual({ ...langchain, turns: [] })
        },
      ),
      {
        numRuns: 40,
        examples: [
          // A write repeated: MCP's server echoes the absolute path, the others the relative one.
          [
            (root: string) => ({ ...testPolicy(root), commands: { allow: [] } }),
            [repeatedWrite, repeatedWrite],
          ],
        ],
      },
    )
  })

  it('should give the same decisions, events and effects in plan mode', async () => {
    await fc.assert(
      // every policy here approves the plan: it may run git and write NOTES.md
      fc.asyncProperty(
        policies({ allow: ['git'] }),
        fc.array(call, { minLength: 1, maxLength: 3 }),
        async (policy, calls) => {
          const { langchain, aiSdk, mcp } = await throughEach({
            policy,
            plan: PLAN,
            calls,
            maskTools: false,
          })
          expect(langchain?.calls).toHaveLength(calls.length)
          expect(langchain?.turns).toEqual([])
          expect(comparable(aiSdk, true)).toEqual(comparable(langchain, true))
          expect(comparable(mcp, true)).toEqual(comparable(langchain, true))
        },
      ),
      { numRuns: 40 },
    )
  })

  it('should give the same decisions, events and effects in plan mode with the tools masked', async () => {
    await fc.assert(
      fc.asyncProperty(
        policies({ allow: ['git'] }),
        fc.array(call, { minLength: 1, maxLength: 3 }),
        async (policy, calls) => {
          const { langchain, aiSdk } = await throughEach({ policy, plan: PLAN, calls })
          // A call of a hidden tool still reaches the guard, which decides and reports it.
          expect(langchain?.calls).toHaveLength(calls.length)
          expect(comparable(aiSdk, true)).toEqual(comparable(langchain, true))
        },
      ),
      { numRuns: 25 },
    )
  })
})
