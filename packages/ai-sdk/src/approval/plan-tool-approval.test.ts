import { generateText, stepCountIs, streamText } from 'ai'
import { describe, expect, it } from 'vitest'
import { planPrepareStep } from '../loop/plan-prepare-step.js'
import { guardFixture } from '../test/guard-fixture.js'
import { promptOf, scriptedModel, toolResultsIn } from '../test/scripted-model.js'
import { testTools } from '../test-utils/test-tools.js'
import { guardTools } from '../tools/guard-tools.js'
import { planToolApproval } from './plan-tool-approval.js'

const readPlan = [{ id: 'read', tool: 'view_file', args: { file: 'README.md' } }]

describe('planToolApproval', () => {
  it('should deny an off-plan call as execution-denied with the reason in the next prompt', async () => {
    const { guard } = await guardFixture(readPlan)
    const { tools, spies } = testTools()
    const model = scriptedModel([
      { calls: [{ id: 'c1', tool: 'run_command', input: { command: 'git push --force' } }] },
    ])

    await generateText({
      model,
      tools: guardTools(tools, guard),
      toolApproval: planToolApproval(guard),
      prompt: 'go',
      stopWhen: stepCountIs(3),
    })

    expect(spies.runCommand).not.toHaveBeenCalled()
    const output = toolResultsIn(model, 1).get('c1') as { type: string; reason?: string }
    expect(output.type).toBe('execution-denied')
    expect(output.reason).toContain('call_not_in_plan')
  })

  it('should report each denial to onDecision with its issues', async () => {
    const { guard } = await guardFixture(readPlan)
    const { tools } = testTools()
    const events: { callId: string | undefined; allowed: boolean; codes: string[] }[] = []
    const model = scriptedModel([
      { calls: [{ id: 'c1', tool: 'run_command', input: { command: 'git push --force' } }] },
    ])

    await generateText({
      model,
      tools: guardTools(tools, guard),
      toolApproval: planToolApproval(guard, {
        onDecision: (event) =>
          events.push({
            callId: event.callId,
            allowed: event.allowed,
            codes: event.issues.map((issue) => issue.code),
          }),
      }),
      prompt: 'go',
      stopWhen: stepCountIs(3),
    })

    expect(events).toEqual([{ callId: 'c1', allowed: false, codes: ['call_not_in_plan'] }])
  })

  it('should deny a path escape in streamText before the tool runs', async () => {
    const { guard } = await guardFixture(readPlan)
    const { tools, spies } = testTools()
    const model = scriptedModel([
      { calls: [{ id: 'c1', tool: 'view_file', input: { file: '../../etc/passwd' } }] },
    ])

    const result = streamText({
      model,
      tools: guardTools(tools, guard),
      toolApproval: planToolApproval(guard),
      prompt: 'go',
      stopWhen: stepCountIs(3),
    })
    const types: string[] = []
    for await (const part of result.fullStream) types.push(part.type)

    expect(types).toContain('tool-output-denied')
    expect(spies.viewFile).not.toHaveBeenCalled()
    expect(promptOf(model, 1)).toContain('execution-denied')
  })

  it('should reserve an allowed step once, so approval and wrapper run it exactly once', async () => {
    const { guard } = await guardFixture(readPlan)
    const { tools, spies } = testTools()
    const model = scriptedModel([
      { calls: [{ id: 'c1', tool: 'view_file', input: { file: 'README.md' } }] },
    ])

    await generateText({
      model,
      tools: guardTools(tools, guard),
      toolApproval: planToolApproval(guard),
      prompt: 'go',
      stopWhen: stepCountIs(3),
    })

    expect(spies.viewFile).toHaveBeenCalledTimes(1)
    expect(guard.snapshot().calls).toBe(1)
    expect(guard.snapshot().status).toEqual({ read: 'done' })
  })

  it('should record an automatic approval when allowedStatus is approved', async () => {
    const { guard } = await guardFixture(readPlan)
    const { tools } = testTools()
    const model = scriptedModel([
      { calls: [{ id: 'c1', tool: 'view_file', input: { file: 'README.md' } }] },
    ])

    const result = await generateText({
      model,
      tools: guardTools(tools, guard),
      toolApproval: planToolApproval(guard, { allowedStatus: 'approved' }),
      prompt: 'go',
      stopWhen: stepCountIs(3),
    })

    const approval = result.steps[0]?.content.find((part) => part.type === 'tool-approval-response')
    expect(approval).toMatchObject({ approved: true })
  })

  it('should deny calls to tools that guardTools did not wrap', async () => {
    const { guard } = await guardFixture(readPlan)
    const { tools, spies } = testTools()
    const model = scriptedModel([
      { calls: [{ id: 'c1', tool: 'view_file', input: { file: 'README.md' } }] },
    ])

    await generateText({
      model,
      tools,
      toolApproval: planToolApproval(guard),
      prompt: 'go',
      stopWhen: stepCountIs(3),
    })

    expect(spies.viewFile).not.toHaveBeenCalled()
    expect(promptOf(model, 1)).toContain('not wrapped by guardTools')
    expect(guard.snapshot().calls).toBe(0)
  })

  it('should hand a reservation that never ran back to the plan before the next step', async () => {
    const { guard } = await guardFixture(readPlan)
    const { tools } = testTools()
    const approval = planToolApproval(guard)
    const guarded = guardTools(tools, guard)

    const status = await approval({
      toolCall: { toolName: 'view_file', toolCallId: 'c1', input: { file: 'README.md' } },
      tools: guarded,
    })
    expect(status).toBe('not-applicable')
    expect(guard.readyTools()).toEqual([])

    const prepareStep = planPrepareStep(guard)
    const model = scriptedModel([])
    await prepareStep({
      model,
      steps: [],
      stepNumber: 1,
      instructions: undefined,
      initialInstructions: undefined,
      messages: [],
      initialMessages: [],
      responseMessages: [],
      toolsContext: {},
      runtimeContext: {},
    })

    expect(guard.readyTools()).toEqual(['view_file'])
  })
})
