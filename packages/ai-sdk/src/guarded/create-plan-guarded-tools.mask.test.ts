import type { CallDecisionEvent, DecisionEvent } from '@plan/core'
import { generateText, stepCountIs, streamText } from 'ai'
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
  // The tools the model is shown at each of its calls.
  const shown: string[][] = []
  const model = scriptedModel((index, callOptions) => {
    shown.push((callOptions.tools ?? []).map((tool) => tool.name))
    return index === 0
      ? { calls: [{ id: 'early', tool: 'run_command', input: { command: 'npm test' } }] }
      : { text: 'Done.' }
  })
  await generateText({
    model,
    tools: guarded.tools,
    toolApproval: guarded.toolApproval,
    prepareStep: guarded.prepareStep,
    stopWhen: [guarded.stopWhen, stepCountIs(3)],
    prompt: 'run the tests',
  })
  const calls = events.filter((event): event is CallDecisionEvent => event.kind === 'call')
  return { calls, ran: spies.runCommand.mock.calls.length, shown }
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

  it('should hide a tool no ready step needs by default, and still report a call of it', async () => {
    const { calls, ran, shown } = await runTooEarly(undefined)
    expect(ran).toBe(0)
    expect(shown).toEqual([['view_file'], ['view_file']])
    expect(calls).toMatchObject([
      {
        tool: 'run_command',
        callId: 'early',
        allowed: false,
        issues: [{ code: 'step_not_ready' }],
      },
    ])
  })
})

/** Runs a per-turn model that calls `delete_file`, a tool of the set the policy does not list. */
async function runUnlisted(maskTools: boolean | undefined, stream = false) {
  const { tools, spies } = testTools()
  const events: DecisionEvent[] = []
  const guarded = await createPlanGuardedTools({
    tools,
    policy: testPolicy((await createTestWorkspace()).root),
    onDecision: (event) => events.push(event),
    ...(maskTools === undefined ? {} : { maskTools }),
  })
  const shown: string[][] = []
  const model = scriptedModel((index, callOptions) => {
    shown.push((callOptions.tools ?? []).map((tool) => tool.name))
    return index === 0
      ? { calls: [{ id: 'del', tool: 'delete_file', input: { file: 'README.md' } }] }
      : { text: 'Done.' }
  })
  const settings = {
    model,
    tools: guarded.tools,
    toolApproval: guarded.toolApproval,
    prepareStep: guarded.prepareStep,
    stopWhen: [guarded.stopWhen, stepCountIs(3)],
    prompt: 'delete the readme',
  }
  if (stream) await streamText(settings).consumeStream()
  else await generateText(settings)
  return { events, ran: spies.deleteFile.mock.calls.length, shown: shown[0] }
}

describe('createPlanGuardedTools in per-turn mode', () => {
  it('should show only the tools the policy lists, and report a call of another as unmasked', async () => {
    const masked = await runUnlisted(undefined)
    const unmasked = await runUnlisted(false)
    expect(masked.shown).toEqual(['view_file', 'write_file', 'run_command'])
    expect(unmasked.shown).toEqual(['view_file', 'write_file', 'run_command', 'delete_file'])
    expect([masked.ran, unmasked.ran]).toEqual([0, 0])
    expect(masked.events).toEqual(unmasked.events)
    expect(masked.events).toMatchObject([
      { kind: 'turn', allowed: false, callIds: ['del'], issues: [{ code: 'unknown_tool' }] },
      { kind: 'call', tool: 'delete_file', allowed: false, issues: [{ code: 'unknown_tool' }] },
    ])
  })

  it('should show only the tools the policy lists to a streaming model', async () => {
    const masked = await runUnlisted(undefined, true)
    const unmasked = await runUnlisted(false, true)
    expect(masked.shown).toEqual(['view_file', 'write_file', 'run_command'])
    expect(unmasked.shown).toEqual(['view_file', 'write_file', 'run_command', 'delete_file'])
    expect([masked.ran, unmasked.ran]).toEqual([0, 0])
    expect(masked.events).toEqual(unmasked.events)
    expect(masked.events).toMatchObject([
      { kind: 'turn', allowed: false, callIds: ['del'], issues: [{ code: 'unknown_tool' }] },
      { kind: 'call', tool: 'delete_file', allowed: false },
    ])
  })
})
