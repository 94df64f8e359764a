import { AIMessage, HumanMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { modelStepToolPolicy } from '@plan/core'
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

const plan = [
  { id: 'read', tool: 'view_file', args: { file: 'README.md' } },
  {
    id: 'which',
    tool: 'extract',
    args: { input: { $ref: 'read' }, instruction: 'Which guide?', schema: { type: 'path' } },
  },
  { id: 'guide', tool: 'view_file', args: { file: { $ref: 'which' } } },
]

describe('modelStepsWith', () => {
  it('should run an extraction step with the extraction model, never the agent model', async () => {
    const extractor = fakeModel().respond(new AIMessage('{"value": "docs/guide.md"}'))
    const model = fakeModel()
      .respondWithTools([{ name: 'view_file', args: { file: 'README.md' }, id: 'a' }])
      .respondWithTools([{ name: 'view_file', args: { file: 'docs/guide.md' }, id: 'b' }])
      .respond(new AIMessage('Read the guide.'))
    const agent = createAgent({
      model,
      tools: workspace.tools,
      middleware: [
        planGuardMiddleware({
          policy: workspace.policy({
            tools: { ...workspace.policy().tools, ...modelStepToolPolicy() },
          }),
          plan,
          extractionModel: extractor,
        }),
      ],
    })
    const result = await agent.invoke({
      messages: [new HumanMessage('Read the guide README names.')],
    })
    expect(workspace.ran.map((entry) => entry.split('/').at(-1))).toEqual(['README.md', 'guide.md'])
    expect(extractor.callCount).toBe(1)
    expect(extractor.calls[0]?.messages[0]?.text).toContain('untrusted')
    expect(result.messages.at(-1)?.text).toBe('Read the guide.')
  })

  it('should fail the step and skip its dependents when the answer leaves the schema', async () => {
    const extractor = fakeModel().respond(new AIMessage('{"value": "../outside/secret.txt"}'))
    const model = fakeModel()
      .respondWithTools([{ name: 'view_file', args: { file: 'README.md' }, id: 'a' }])
      .respond(new AIMessage('Nothing more to do.'))
    const agent = createAgent({
      model,
      tools: workspace.tools,
      middleware: [
        planGuardMiddleware({
          policy: workspace.policy({
            tools: { ...workspace.policy().tools, ...modelStepToolPolicy() },
          }),
          plan,
          extractionModel: extractor,
        }),
      ],
    })
    await agent.invoke({ messages: [new HumanMessage('Read the guide README names.')] })
    expect(workspace.ran).toHaveLength(1)
    expect(model.calls[1]?.messages[0]?.text).toContain(
      'Every step of the approved plan has finished',
    )
  })
})
