import { HumanMessage } from '@langchain/core/messages'
import { createAgent } from 'langchain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { scriptedModel } from '../test/index.js'
import { type AgentWorkspace, createAgentWorkspace, toolMessages } from '../test-utils/workspace.js'
import { planGuardMiddleware } from './plan-guard-middleware.js'

let workspace: AgentWorkspace

beforeEach(async () => {
  workspace = await createAgentWorkspace()
})
afterEach(async () => {
  await workspace.cleanup()
})

async function runTests(labelledFiles?: Record<string, readonly string[]>) {
  const agent = createAgent({
    model: scriptedModel([
      { calls: [{ id: 't', tool: 'run_command', args: { command: 'npm test' } }] },
      { text: 'Done.' },
    ]),
    tools: workspace.tools,
    middleware: [
      planGuardMiddleware({
        policy: workspace.policy(),
        ...(labelledFiles === undefined ? {} : { labelledFiles }),
      }),
    ],
  })
  return toolMessages((await agent.invoke({ messages: [new HumanMessage('Go.')] })).messages)
}

describe('planGuardMiddleware with labelledFiles', () => {
  it('should refuse a command that runs a file an earlier run wrote from untrusted data', async () => {
    const answers = await runTests({ 'test/x.test.js': ['file:README.md'] })
    expect(workspace.ran).toEqual([])
    expect(answers.get('t')?.text).toContain('untrusted_flow')
    expect(answers.get('t')?.text).toContain('test/x.test.js (from file:README.md)')
  })

  it('should run the command when no file is labelled', async () => {
    await runTests()
    expect(workspace.ran).toEqual(['run_command:npm test'])
  })
})
