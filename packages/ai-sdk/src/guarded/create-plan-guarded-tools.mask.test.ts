import type { CallDecisionEvent, DecisionEvent } from '@plan/core'
import { generateText, stepCountIs } from 'ai'
import { describe, expect, it } from 'vitest'
import { scriptedModel } from '../test/scripted-model.js'
import { createTestWorkspace, testPolicy } from '../test/test-workspace.js'
import { testTools } from '../test-utils/test-tools.js'
import { createPlanGuardedTools } from './create-plan-guarded-tools.js'

const plan = [
  { id: 'read', tool: 'view_file', args: { file: 'README.md' } },
  { id: 'test', tool: 'run_command', args: { command: 'npm test' }, depends_on: ['read'] },
]

/** Runs a model that calls `run_command` before the step it depends on is done. */
async function runTooEarly(maskTools: boolean | undefined) {
  const { tools, spies } = testTools()
  const events: DecisionEvent[] = []
  const guarded = await createPlanGuardedTools({
    tools,
    policy: testPolicy((await createTestWorkspace()).root),
    plan,
    onDecision: (event) => events.push(event),
    ...(maskTools === undefined ? {} : { maskTools }),
  })
  const model = scriptedModel([
    { calls: [{ id: 'early', tool: 'run_command', input: { command: 'npm test' } }] },
    { text: 'Done.' },
  ])
  await generateText({
    model,
    tools: guarded.tools,
    toolApproval: guarded.toolApproval,
    prepareStep: guarded.prepareStep,
    stopWhen: [guarded.stopWhen, stepCountIs(3)],
    prompt: 'run the tests',
  })
  const calls = events.filter((event): event is CallDecisionEvent => event.kind === 'call')
  return { calls, ran: spies.runCommand.mock.calls.length }
}

describe('createPlanGuardedTools', () => {
  it('should let every call reach the guard, and report it, with maskTools false', async () => {
    const { calls, ran } = await runTooEarly(false)
    expect(ran).toBe(0)
    expect(calls).toMatchObject([
      {
        tool: 'run_command',
        callId: 'early',
        allowed: false,
        issues: [{ code: 'step_not_ready' }],
      },
    ])
  })

  it('should hide a tool no ready step needs by default, so the SDK refuses its call', async () => {
    const { calls, ran } = await runTooEarly(undefined)
    expect(ran).toBe(0)
    expect(calls).toEqual([])
  })
})
