import { generateText, stepCountIs } from 'ai'
import { describe, expect, it } from 'vitest'
import { guardFixture } from '../test/guard-fixture.js'
import { modelCalls, promptOf, scriptedModel } from '../test/scripted-model.js'
import { testTools } from '../test-utils/test-tools.js'
import { guardTools } from '../tools/guard-tools.js'
import { planPrepareStep } from './plan-prepare-step.js'
import { planStopWhen } from './plan-stop-when.js'

describe('planStopWhen', () => {
  it('should stop a model that repeats the same call', async () => {
    const { guard } = await guardFixture(undefined, { maxIdenticalCalls: 3 })
    const { tools, spies } = testTools()
    const model = scriptedModel((index) => ({
      calls: [{ id: `c${index}`, tool: 'run_command', input: { command: 'git status' } }],
    }))

    await generateText({
      model,
      tools: guardTools(tools, guard),
      prepareStep: planPrepareStep(guard, { tools }),
      stopWhen: [planStopWhen(guard), stepCountIs(50)],
      prompt: 'go',
    })

    expect(spies.runCommand).toHaveBeenCalledTimes(3)
    // the fifth call is the model's last word, told why the run stopped
    expect(modelCalls(model).length).toBe(5)
    expect(promptOf(model, 4)).toContain('@plan stopped this run')
    expect(modelCalls(model)[4]?.tools ?? []).toEqual([])
    expect(guard.stopReason()?.code).toBe('repeated_call')
  })

  it('should stop when the plan is complete with stopWhenComplete true', async () => {
    const { guard } = await guardFixture([
      { id: 'read', tool: 'view_file', args: { file: 'README.md' } },
    ])
    const { tools } = testTools()
    const model = scriptedModel((index) => ({
      calls: [{ id: `c${index}`, tool: 'view_file', input: { file: 'README.md' } }],
    }))

    const result = await generateText({
      model,
      tools: guardTools(tools, guard),
      stopWhen: [planStopWhen(guard, { stopWhenComplete: true }), stepCountIs(50)],
      prompt: 'go',
    })

    expect(result.steps.length).toBe(1)
  })

  it('should let the model answer after the plan by default', async () => {
    const { guard } = await guardFixture([
      { id: 'read', tool: 'view_file', args: { file: 'README.md' } },
    ])
    const { tools } = testTools()
    const model = scriptedModel([
      { calls: [{ id: 'c1', tool: 'view_file', input: { file: 'README.md' } }] },
      { text: 'The readme is a demo.' },
    ])

    const result = await generateText({
      model,
      tools: guardTools(tools, guard),
      prepareStep: planPrepareStep(guard),
      stopWhen: [planStopWhen(guard), stepCountIs(50)],
      prompt: 'go',
    })

    expect(result.text).toBe('The readme is a demo.')
  })
})
