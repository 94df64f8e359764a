import { createMemoryAuditSink } from '@plan/audit'
import { generateText, stepCountIs } from 'ai'
import { describe, expect, it } from 'vitest'
import { scriptedModel } from '../test/scripted-model.js'
import { createTestWorkspace, testPolicy } from '../test/test-workspace.js'
import { testTools } from '../test-utils/test-tools.js'
import { createPlanGuardedTools } from './create-plan-guarded-tools.js'

describe('createPlanGuardedTools', () => {
  it('should write every decision to the audit sink it is given', async () => {
    const audit = createMemoryAuditSink()
    const { tools, spies } = testTools()
    const policy = { ...testPolicy((await createTestWorkspace()).root), audit: { required: true } }
    const guarded = await createPlanGuardedTools({ tools, policy, audit })
    const model = scriptedModel([
      {
        calls: [
          { id: 'c1', tool: 'view_file', input: { file: 'README.md' } },
          { id: 'c2', tool: 'view_file', input: { file: '../../etc/passwd' } },
        ],
      },
      { text: 'Done.' },
    ])

    await generateText({
      model,
      tools: guarded.tools,
      toolApproval: guarded.toolApproval,
      prepareStep: guarded.prepareStep,
      stopWhen: [guarded.stopWhen, stepCountIs(5)],
      prompt: 'read the readme',
    })

    expect(spies.viewFile).not.toHaveBeenCalled()
    expect(audit.events.map((event) => event.type)).toContain('plan_rejected')
    const rejected = audit.events.find((event) => event.type === 'plan_rejected')
    expect(
      rejected?.type === 'plan_rejected' && rejected.issues.map((issue) => issue.code),
    ).toContain('path_outside_workspace')
  })

  it('should write an allowed call to the audit sink as call_allowed', async () => {
    const audit = createMemoryAuditSink()
    const { tools, spies } = testTools()
    const guarded = await createPlanGuardedTools({
      tools,
      policy: testPolicy((await createTestWorkspace()).root),
      audit,
    })
    const model = scriptedModel([
      { calls: [{ id: 'c1', tool: 'view_file', input: { file: 'README.md' } }] },
      { text: 'Done.' },
    ])

    await generateText({
      model,
      tools: guarded.tools,
      toolApproval: guarded.toolApproval,
      prepareStep: guarded.prepareStep,
      stopWhen: [guarded.stopWhen, stepCountIs(5)],
      prompt: 'read the readme',
    })

    expect(spies.viewFile).toHaveBeenCalledTimes(1)
    expect(audit.events.filter((event) => event.type === 'call_allowed')).toMatchObject([
      { type: 'call_allowed', tool: 'view_file' },
    ])
  })

  it('should refuse to start without an audit sink when the policy requires one', async () => {
    const { tools } = testTools()
    const policy = { ...testPolicy((await createTestWorkspace()).root), audit: { required: true } }

    await expect(createPlanGuardedTools({ tools, policy })).rejects.toMatchObject({
      code: 'audit_failed',
    })
  })
})
