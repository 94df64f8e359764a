import { createPlanCompiler, modelStepToolPolicy } from '@plan/core'
import { describe, expect, it } from 'vitest'
import { modelCalls, promptOf, scriptedModel } from '../test/scripted-model.js'
import { createTestWorkspace, testPolicy } from '../test/test-workspace.js'
import { generatePlan } from './generate-plan.js'

const escaping = { steps: [{ id: 'read', tool: 'view_file', args: { file: '../../etc/passwd' } }] }
/** A plan that leaves the workspace, a different one for each `index`. */
const escapingTo = (index: number) => ({
  steps: [{ id: 'read', tool: 'view_file', args: { file: `../../etc/passwd${index}` } }],
})
const good = {
  goal: 'read and test',
  steps: [
    { id: 'read', tool: 'view_file', args: { file: 'README.md' } },
    { id: 'test', tool: 'run_command', args: { command: 'npm test' }, depends_on: ['read'] },
  ],
}

describe('generatePlan', () => {
  it('should return the compiled plan the model writes', async () => {
    const compiler = await createPlanCompiler(testPolicy((await createTestWorkspace()).root))
    const model = scriptedModel([{ text: JSON.stringify(good) }])

    const result = await generatePlan({ model, compiler, prompt: 'run the tests' })

    expect(result.success).toBe(true)
    expect(result.success && result.plan.order).toEqual(['read', 'test'])
    const call = modelCalls(model)[0]
    expect(call?.responseFormat).toMatchObject({ type: 'json', name: 'plan' })
    expect(promptOf(model, 0)).toContain('view_file')
  })

  it('should feed the issues back and accept the corrected plan', async () => {
    const compiler = await createPlanCompiler(testPolicy((await createTestWorkspace()).root))
    const model = scriptedModel([
      { text: JSON.stringify(escaping) },
      { text: JSON.stringify(good) },
    ])

    const result = await generatePlan({ model, compiler, prompt: 'run the tests' })

    expect(result.success).toBe(true)
    expect(result.rejected).toHaveLength(1)
    expect(result.rejected[0]?.issues[0]?.code).toBe('path_outside_workspace')
    expect(promptOf(model, 1)).toContain('path_outside_workspace')
  })

  it('should feed back an answer that is not a plan object', async () => {
    const compiler = await createPlanCompiler(testPolicy((await createTestWorkspace()).root))
    const model = scriptedModel([
      { text: 'Sure! Here is my plan: read the file.' },
      { text: JSON.stringify(good) },
    ])

    const result = await generatePlan({ model, compiler, prompt: 'run the tests' })

    expect(result.success).toBe(true)
    expect(result.rejected[0]?.issues[0]?.code).toBe('invalid_plan')
    expect(promptOf(model, 1)).toContain('not a plan object')
  })

  it('should give up after maxReplans re-plans with the last issues', async () => {
    const compiler = await createPlanCompiler(testPolicy((await createTestWorkspace()).root))
    const model = scriptedModel((index) => ({ text: JSON.stringify(escapingTo(index)) }))

    const result = await generatePlan({ model, compiler, prompt: 'read passwd', maxReplans: 1 })

    expect(result).toMatchObject({ success: false, attempts: 2 })
    expect(modelCalls(model)).toHaveLength(2)
    expect(result.issues.map((issue) => issue.code)).toEqual(['path_outside_workspace'])
  })

  it("should re-plan as often as the policy's maxReplans by default, and never more", async () => {
    const policy = { ...testPolicy((await createTestWorkspace()).root), budgets: { maxReplans: 2 } }
    const compiler = await createPlanCompiler(policy)
    for (const maxReplans of [undefined, 10]) {
      const model = scriptedModel((index) => ({ text: JSON.stringify(escapingTo(index)) }))

      const result = await generatePlan({ model, compiler, prompt: 'read', maxReplans })

      expect(result).toMatchObject({ success: false, attempts: 3 })
      expect(modelCalls(model)).toHaveLength(3)
    }
  })

  it('should refuse a negative maxReplans with invalid_configuration', async () => {
    const compiler = await createPlanCompiler(testPolicy((await createTestWorkspace()).root))
    const model = scriptedModel([{ text: JSON.stringify(good) }])

    await expect(
      generatePlan({ model, compiler, prompt: 'read', maxReplans: -1 }),
    ).rejects.toMatchObject({ code: 'invalid_configuration' })
    expect(modelCalls(model)).toHaveLength(0)
  })

  it('should take the conversation so far as the prompt', async () => {
    const compiler = await createPlanCompiler(testPolicy((await createTestWorkspace()).root))
    const model = scriptedModel([{ text: JSON.stringify(good) }])

    const result = await generatePlan({
      model,
      compiler: Promise.resolve(compiler),
      prompt: [{ role: 'user', content: 'run the tests, then tell me what failed' }],
    })

    expect(result.success).toBe(true)
    expect(promptOf(model, 0)).toContain('tell me what failed')
  })

  it('should stop with replan_loop when a rejected plan comes back', async () => {
    const compiler = await createPlanCompiler(testPolicy((await createTestWorkspace()).root))
    const model = scriptedModel(() => ({ text: JSON.stringify(escaping) }))

    const result = await generatePlan({ model, compiler, prompt: 'read passwd', maxReplans: 4 })

    expect(modelCalls(model)).toHaveLength(2)
    expect(result).toMatchObject({ success: false, attempts: 2, lastPlan: escaping })
    expect(result.issues.map((issue) => issue.code)).toEqual([
      'path_outside_workspace',
      'replan_loop',
    ])
  })

  it('should let the model plan an extraction step when the policy has model steps', async () => {
    const policy = testPolicy((await createTestWorkspace()).root)
    const compiler = await createPlanCompiler({
      ...policy,
      tools: { ...policy.tools, ...modelStepToolPolicy() },
    })
    const readThenDecide = {
      steps: [
        { id: 'test', tool: 'view_file', args: { file: 'test/a.test.js' } },
        {
          id: 'which',
          tool: 'extract',
          args: {
            input: { $ref: 'test.output.content' },
            instruction: 'Which source file does the test import?',
            schema: { type: 'path', within: ['src/**'] },
          },
        },
        { id: 'source', tool: 'view_file', args: { file: { $ref: 'which' } } },
      ],
    }
    const model = scriptedModel([{ text: JSON.stringify(readThenDecide) }])

    const result = await generatePlan({
      model,
      compiler,
      prompt: 'fix what the failing test names',
    })

    expect(result.success).toBe(true)
    expect(promptOf(model, 0)).toContain('add an \\"extract\\" step')
  })
})
