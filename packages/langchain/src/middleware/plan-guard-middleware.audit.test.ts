import { HumanMessage } from '@langchain/core/messages'
import { createMemoryAuditSink } from '@plan/audit'
import { createPlanCompiler } from '@plan/core'
import { createAgent } from 'langchain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { scriptedModel } from '../test/scripted-model.js'
import { type AgentWorkspace, createAgentWorkspace } from '../test-utils/workspace.js'
import { planGuardMiddleware } from './plan-guard-middleware.js'

let workspace: AgentWorkspace

beforeEach(async () => {
  workspace = await createAgentWorkspace()
})

afterEach(async () => {
  await workspace.cleanup()
})

async function run(middleware: ReturnType<typeof planGuardMiddleware>) {
  const model = scriptedModel([
    { calls: [{ id: 'read', tool: 'view_file', args: { file: 'README.md' } }] },
    { calls: [{ id: 'out', tool: 'view_file', args: { file: 'escape/secret.txt' } }] },
    { text: 'Done.' },
  ])
  const agent = createAgent({ model, tools: workspace.tools, middleware: [middleware] })
  await agent.invoke({ messages: [new HumanMessage('Read the readme.')] })
}

describe('planGuardMiddleware', () => {
  it('should write every decision to the audit sink it is given', async () => {
    const audit = createMemoryAuditSink()
    const policy = workspace.policy({ audit: { required: true } })

    await run(planGuardMiddleware({ policy, audit }))

    expect(workspace.ran).toEqual([`view_file:${workspace.root}/README.md`])
    const types = audit.events.map((event) => event.type)
    expect(types).toContain('call_allowed')
    expect(types.some((type) => type === 'call_denied' || type === 'plan_rejected')).toBe(true)
  })

  it('should audit the runs of a plan, not the check of the plan at setup', async () => {
    const audit = createMemoryAuditSink()
    const plan = [{ id: 'read', tool: 'view_file', args: { file: 'README.md' } }]

    const middleware = planGuardMiddleware({ policy: workspace.policy(), plan, audit })
    expect(audit.events).toEqual([])
    await run(middleware)

    expect(audit.events.filter((event) => event.type === 'plan_approved')).toHaveLength(1)
    expect(audit.events.filter((event) => event.type === 'call_allowed')).toMatchObject([
      { stepId: 'read', tool: 'view_file' },
    ])
  })

  it('should refuse to be built without an audit sink when the policy requires one', async () => {
    const plan = [{ id: 'read', tool: 'view_file', args: { file: 'README.md' } }]
    const compiler = await createPlanCompiler(workspace.policy({ audit: { required: true } }))

    expect(() => planGuardMiddleware({ compiler, plan })).toThrow(
      expect.objectContaining({ code: 'audit_failed' }),
    )
  })

  it('should run no tool without an audit sink when the policy requires one', async () => {
    const policy = workspace.policy({ audit: { required: true } })

    await expect(run(planGuardMiddleware({ policy }))).rejects.toMatchObject({
      code: 'audit_failed',
    })
    expect(workspace.ran).toEqual([])
  })
})
