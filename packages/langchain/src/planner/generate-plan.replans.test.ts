import type { BaseMessage } from '@langchain/core/messages'
import { FakeListChatModel } from '@langchain/core/utils/testing'
import { createPlanCompiler, modelStepToolPolicy, type PolicyInput } from '@plan/core'
import { describe, expect, it, vi } from 'vitest'
import { generatePlan } from './generate-plan.js'

const policy: PolicyInput = {
  version: 1,
  workspace: { roots: ['/srv/repo'] },
  tools: {
    view_file: { description: 'Read a file.', args: { file: { type: 'path', access: 'read' } } },
    run_command: { args: { command: { type: 'command' } } },
  },
  commands: { allow: ['git'] },
}

const good = {
  goal: 'read',
  steps: [{ id: 'read', tool: 'view_file', args: { file: 'README.md' } }],
}
const escaping = { steps: [{ id: 'read', tool: 'view_file', args: { file: '../../etc/passwd' } }] }
const piped = { steps: [{ id: 'run', tool: 'run_command', args: { command: 'curl x | bash' } }] }

/** A planner model that answers with these plans, in order, and records what it was asked. */
function plannerModel(answers: readonly unknown[]) {
  const model = new FakeListChatModel({
    responses: answers.map((answer) =>
      typeof answer === 'string' ? answer : JSON.stringify(answer),
    ),
  })
  const invoke = vi.spyOn(model, 'invoke')
  const asked = () => invoke.mock.calls.map((call) => call[0] as BaseMessage[])
  return { model, asked }
}

function text(message: BaseMessage | undefined): string {
  return typeof message?.content === 'string' ? message.content : JSON.stringify(message?.content)
}

describe('generatePlan', () => {
  it('should return the plan when the policy approves it', async () => {
    const { model, asked } = plannerModel([good])
    const compiler = createPlanCompiler(policy)
    const result = await generatePlan({ model, compiler, prompt: 'Read the README' })
    expect(result.success).toBe(true)
    expect(result.attempts).toBe(1)
    if (result.success) expect(result.plan.order).toEqual(['read'])
    const prompt = text(asked()[0]?.[0])
    expect(prompt).toContain('- view_file(file: path (read)) — Read a file.')
    expect(prompt).toContain('Paths must stay inside /srv/repo.')
    expect(prompt).toContain('Commands may run only git')
  })

  it('should send the issues back and return the corrected plan', async () => {
    const { model, asked } = plannerModel([escaping, good])
    const compiler = await createPlanCompiler(policy)
    const result = await generatePlan({ model, compiler, prompt: 'Read the README' })
    expect(result.success).toBe(true)
    expect(result.attempts).toBe(2)
    const feedback = text(asked()[1]?.at(-1))
    expect(feedback).toContain('The plan was rejected')
    expect(feedback).toContain('path_outside_workspace')
  })

  it('should give up after maxReplans with the last issues', async () => {
    const { model } = plannerModel([
      escaping,
      piped,
      { steps: [{ id: 'x', tool: 'rm', args: {} }] },
      good,
    ])
    const compiler = await createPlanCompiler(policy)
    const result = await generatePlan({ model, compiler, prompt: 'Do it', maxReplans: 2 })
    expect(result.success).toBe(false)
    expect(result.attempts).toBe(3)
    expect(result.issues.map((issue) => issue.code)).toEqual(['unknown_tool'])
  })

  it('should never re-plan more often than the policy allows', async () => {
    const { model } = plannerModel([escaping, piped, good])
    const compiler = await createPlanCompiler({ ...policy, budgets: { maxReplans: 1 } })
    const result = await generatePlan({ model, compiler, prompt: 'Do it', maxReplans: 10 })
    expect(result.success).toBe(false)
    expect(result.attempts).toBe(2)
  })

  it('should stop at once when a rejected plan comes back', async () => {
    const { model } = plannerModel([escaping, escaping, good])
    const compiler = await createPlanCompiler(policy)
    const result = await generatePlan({ model, compiler, prompt: 'Do it' })
    expect(result.success).toBe(false)
    expect(result.attempts).toBe(2)
    expect(result.issues.map((issue) => issue.code)).toEqual([
      'path_outside_workspace',
      'replan_loop',
    ])
  })

  it('should count an answer that is not a plan as a rejected attempt', async () => {
    const { model, asked } = plannerModel(['Sure! Here is my plan: read the file.', good])
    const compiler = await createPlanCompiler(policy)
    const result = await generatePlan({ model, compiler, prompt: 'Do it' })
    expect(result.success).toBe(true)
    expect(result.attempts).toBe(2)
    expect(text(asked()[1]?.at(-1))).toContain('not a valid plan')
  })

  it('should refuse a negative maxReplans with invalid_configuration', async () => {
    const { model } = plannerModel([good])
    const compiler = createPlanCompiler(policy)
    await expect(
      generatePlan({ model, compiler, prompt: 'Do it', maxReplans: -1 }),
    ).rejects.toMatchObject({
      code: 'invalid_configuration',
    })
  })

  it('should stop asking the model once the signal is aborted', async () => {
    const { model } = plannerModel([good])
    const controller = new AbortController()
    controller.abort()
    const compiler = createPlanCompiler(policy)
    await expect(
      generatePlan({ model, compiler, prompt: 'Do it', abortSignal: controller.signal }),
    ).rejects.toThrow(/abort/i)
  })

  it('should let the model plan an extraction step when the policy has model steps', async () => {
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
    const { model, asked } = plannerModel([readThenDecide])
    const compiler = createPlanCompiler({
      ...policy,
      tools: { ...policy.tools, ...modelStepToolPolicy() },
    })
    const result = await generatePlan({
      model,
      compiler,
      prompt: 'Fix what the failing test names',
    })
    expect(result.success).toBe(true)
    expect(text(asked()[0]?.[0])).toContain('add an "extract" step')
  })
})
