import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import * as kit from '@plan/core/test'
import { createAgent } from 'langchain'
import { describe, expect, it } from 'vitest'
import { planGuardMiddleware } from '../middleware/plan-guard-middleware.js'
import {
  createTestWorkspace,
  recordingTools,
  scriptedModel,
  testPolicy,
  toolMessages,
  unansweredToolCalls,
} from './index.js'

describe('scriptedModel', () => {
  it('should play its turns through a guarded agent, recording what ran', async () => {
    await using workspace = await createTestWorkspace()
    const { tools, ran } = recordingTools()
    const model = scriptedModel([
      { calls: [{ id: 'read', tool: 'view_file', args: { file: 'README.md' } }] },
      { calls: [{ id: 'out', tool: 'view_file', args: { file: 'escape/secret.txt' } }] },
      { text: 'Read.' },
    ])
    const agent = createAgent({
      model,
      tools,
      middleware: [planGuardMiddleware({ policy: testPolicy(workspace.root) })],
    })
    const result = await agent.invoke({ messages: [new HumanMessage('Read the README.')] })
    expect(ran).toEqual([`view_file:${workspace.root}/README.md`])
    expect(toolMessages(result.messages).get('read')?.text).toBe('# Demo\n')
    expect(toolMessages(result.messages).get('out')?.text).toContain('path_outside_workspace')
    expect(result.messages.at(-1)?.text).toBe('Read.')
    expect(model.callCount).toBe(3)
  }, 60_000)
})

describe('createTestWorkspace', () => {
  it("should be the workspace and policy of core's test kit, the same in every adapter", () => {
    expect(createTestWorkspace).toBe(kit.createTestWorkspace)
    expect(testPolicy).toBe(kit.testPolicy)
  })
})

describe('unansweredToolCalls', () => {
  it('should list the calls without exactly one answer before the next AI message', () => {
    const asked = new AIMessage({
      content: '',
      tool_calls: [
        { id: 'a', name: 'view_file', args: {} },
        { id: 'b', name: 'view_file', args: {} },
      ],
    })
    const answer = (id: string) => new ToolMessage({ content: 'ok', tool_call_id: id })
    expect(unansweredToolCalls([asked, answer('a'), answer('b')])).toEqual([])
    expect(unansweredToolCalls([asked, answer('a'), new AIMessage('x'), answer('b')])).toEqual([
      { id: 'b', answers: 0 },
    ])
    expect(unansweredToolCalls([asked, answer('a'), answer('a'), answer('b')])).toEqual([
      { id: 'a', answers: 2 },
    ])
  })
})
