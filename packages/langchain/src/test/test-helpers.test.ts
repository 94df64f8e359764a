import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { createAgent } from 'langchain'
import { describe, expect, it } from 'vitest'
import { planGuardMiddleware } from '../middleware/plan-guard-middleware.js'
import { createTestWorkspace, scriptedModel, toolMessages, unansweredToolCalls } from './index.js'

describe('scriptedModel', () => {
  it('should play its turns through a guarded agent, recording what ran', async () => {
    const workspace = await createTestWorkspace()
    try {
      const model = scriptedModel([
        { calls: [{ id: 'read', tool: 'view_file', args: { file: 'README.md' } }] },
        { text: 'Read.' },
      ])
      const agent = createAgent({
        model,
        tools: workspace.tools,
        middleware: [planGuardMiddleware({ policy: workspace.policy() })],
      })
      const result = await agent.invoke({ messages: [new HumanMessage('Read the README.')] })
      expect(workspace.ran).toEqual([`view_file:${workspace.root}/README.md`])
      expect(toolMessages(result.messages).get('read')?.text).toBe('# Demo\n')
      expect(result.messages.at(-1)?.text).toBe('Read.')
      expect(model.callCount).toBe(2)
    } finally {
      await workspace.cleanup()
    }
  }, 60_000)
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
