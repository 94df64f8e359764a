import { AIMessage, HumanMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { PolicyError } from '@plan/core'
import { createAgent } from 'langchain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type AgentWorkspace, createAgentWorkspace } from '../test-utils/workspace.js'
import { planGuardMiddleware } from './plan-guard-middleware.js'

let workspace: AgentWorkspace

beforeEach(async () => {
  workspace = await createAgentWorkspace()
})

afterEach(async () => {
  await workspace.cleanup()
})

describe('planGuardMiddleware with policy examples', () => {
  it('should stop the run on a policy whose example it decides otherwise, naming the example', async () => {
    const policy = workspace.policy()
    const tools = {
      ...policy.tools,
      view_file: { ...policy.tools.view_file, examples: { deny: [{ file: 'README.md' }] } },
    }
    const model = fakeModel().respond(new AIMessage('Nothing to do.'))
    const agent = createAgent({
      model,
      tools: workspace.tools,
      middleware: [planGuardMiddleware({ policy: { ...policy, tools } })],
    })
    const error = await agent
      .invoke({ messages: [new HumanMessage('Go.')] })
      .catch((thrown) => thrown)
    expect(PolicyError.isInstance(error)).toBe(true)
    expect(
      (error as PolicyError).issues.map((issue) => [issue.code, issue.path.join('.')]),
    ).toEqual([['policy_example_failed', 'tools.view_file.examples.deny.0']])
    expect(model.calls).toHaveLength(0)
  })
})
