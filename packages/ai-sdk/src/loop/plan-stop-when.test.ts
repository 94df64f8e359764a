import type { TurnDecisionEvent } from '@plan/core'
import { runEndedText } from '@plan/core/adapter'
import { generateText, stepCountIs, streamText } from 'ai'
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

  it('should answer a last step that still asks for tools with the closing text every adapter gives', async () => {
    const { guard } = await guardFixture(undefined, { maxIdenticalCalls: 3 })
    const { tools, spies } = testTools()
    const model = scriptedModel((index) => ({
      calls: [{ id: `c${index}`, tool: 'run_command', input: { command: 'git status' } }],
    }))
    const turns: TurnDecisionEvent[] = []

    const result = await generateText({
      model,
      tools: guardTools(tools, guard),
      prepareStep: planPrepareStep(guard, { tools, onDecision: (event) => turns.push(event) }),
      stopWhen: [planStopWhen(guard), stepCountIs(50)],
      prompt: 'go',
    })

    const stop = guard.stopReason()
    expect(stop?.code).toBe('repeated_call')
    expect(result.text).toBe(runEndedText(stop === undefined ? [] : [stop]))
    expect(result.text).toMatch(
      /^@plan ended the run: no further tool call will run\.\n- repeated_call: /,
    )
    expect(result.steps.at(-1)?.toolCalls).toEqual([])
    expect(turns.at(-1)).toEqual({ kind: 'turn', allowed: false, callIds: ['c4'], issues: [stop] })
    expect(spies.runCommand).toHaveBeenCalledTimes(3)
  })

  it('should give the same closing text when the last step streams', async () => {
    const { guard } = await guardFixture(undefined, { maxIdenticalCalls: 3 })
    const { tools, spies } = testTools()
    const model = scriptedModel((index) => ({
      calls: [{ id: `c${index}`, tool: 'run_command', input: { command: 'git status' } }],
    }))

    const result = streamText({
      model,
      tools: guardTools(tools, guard),
      prepareStep: planPrepareStep(guard, { tools }),
      stopWhen: [planStopWhen(guard), stepCountIs(50)],
      prompt: 'go',
    })

    const text = await result.text
    const stop = guard.stopReason()
    expect(text).toBe(runEndedText(stop === undefined ? [] : [stop]))
    expect((await result.steps).at(-1)?.toolCalls).toEqual([])
    expect(spies.runCommand).toHaveBeenCalledTimes(3)
  })

  it('should keep a last step that answers in text as the model wrote it', async () => {
    const { guard } = await guardFixture(undefined, { maxIdenticalCalls: 3 })
    const { tools } = testTools()
    const model = scriptedModel((index) =>
      index < 4
        ? { calls: [{ id: `c${index}`, tool: 'run_command', input: { command: 'git status' } }] }
        : { text: 'The run was stopped after three identical calls.' },
    )

    const result = await generateText({
      model,
      tools: guardTools(tools, guard),
      prepareStep: planPrepareStep(guard, { tools }),
      stopWhen: [planStopWhen(guard), stepCountIs(50)],
      prompt: 'go',
    })

    expect(result.text).toBe('The run was stopped after three identical calls.')
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
