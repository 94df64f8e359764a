import { FakeListChatModel } from '@langchain/core/utils/testing'
import { createPlanCompiler, type PolicyInput } from '@plan/core'
import { describe, expect, it } from 'vitest'
import { generatePlan } from './generate-plan.js'

const policy: PolicyInput = {
  version: 1,
  workspace: { roots: ['/srv/repo'] },
  tools: { view_file: { args: { file: { type: 'path', access: 'read' } } } },
}

const good = { steps: [{ id: 'read', tool: 'view_file', args: { file: 'README.md' } }] }
const escaping = { steps: [{ id: 'read', tool: 'view_file', args: { file: '../../etc/passwd' } }] }

function answering(...answers: unknown[]) {
  return new FakeListChatModel({ responses: answers.map((answer) => JSON.stringify(answer)) })
}

describe('generatePlan', () => {
  it('should return the approved plan with the attempts it rejected before', async () => {
    const compiler = await createPlanCompiler(policy)
    const result = await generatePlan({
      model: answering(escaping, good),
      compiler,
      prompt: 'Read the README',
    })
    expect(result.success).toBe(true)
    expect(result.attempts).toBe(2)
    expect(result.rejected).toHaveLength(1)
    expect(result.rejected[0]?.plan).toEqual(escaping)
    expect(result.rejected[0]?.issues.map((issue) => issue.code)).toContain(
      'path_outside_workspace',
    )
  })

  it('should end at a plan the model sends back unchanged, with every rejected attempt', async () => {
    const result = await generatePlan({
      model: answering(escaping, escaping, good),
      compiler: createPlanCompiler(policy),
      prompt: 'Read the README',
    })
    expect(result.success).toBe(false)
    expect(result.rejected).toHaveLength(2)
    expect(result.issues.map((issue) => issue.code)).toContain('replan_loop')
    if (!result.success) expect(result.lastPlan).toEqual(escaping)
  })
})
