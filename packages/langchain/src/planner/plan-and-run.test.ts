import { join } from 'node:path'
import { AIMessage, ToolMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { FakeListChatModel } from '@langchain/core/utils/testing'
import { PlanCompilationError } from '@plan/core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  type AgentWorkspace,
  createAgentWorkspace,
  expectEveryCallAnswered,
} from '../test-utils/workspace.js'
import { planAndRun } from './plan-and-run.js'

let workspace: AgentWorkspace

beforeEach(async () => {
  workspace = await createAgentWorkspace()
})

afterEach(async () => {
  await workspace.cleanup()
})

const plan = {
  goal: 'Copy the README into NOTES.md',
  steps: [
    { id: 'read', tool: 'view_file', args: { file: 'README.md' } },
    { id: 'write', tool: 'write_file', args: { file: 'NOTES.md', content: { $ref: 'read' } } },
  ],
}

describe('planAndRun', () => {
  it('should plan, re-plan after a rejection, and run only the approved steps', async () => {
    const plannerModel = new FakeListChatModel({
      responses: [
        JSON.stringify({
          steps: [{ id: 'read', tool: 'view_file', args: { file: '/etc/passwd' } }],
        }),
        JSON.stringify(plan),
      ],
    })
    const model = fakeModel()
      .respondWithTools([{ name: 'run_command', args: { command: 'ls' }, id: 'off' }])
      .respondWithTools([{ name: 'view_file', args: { file: 'README.md' }, id: 'a' }])
      .respondWithTools([
        { name: 'write_file', args: { file: 'NOTES.md', content: '# Demo\n' }, id: 'b' },
      ])
      .respond(new AIMessage('Copied.'))
    const result = await planAndRun({
      task: 'Copy the README into NOTES.md',
      model,
      plannerModel,
      tools: workspace.tools,
      policy: workspace.policy(),
    })
    expect(result.attempts).toBe(2)
    expect(result.plan.order).toEqual(['read', 'write'])
    expectEveryCallAnswered(result.messages)
    expect(workspace.ran).toEqual([
      `view_file:${join(workspace.root, 'README.md')}`,
      `write_file:${join(workspace.root, 'NOTES.md')}`,
    ])
    const off = result.messages.find(
      (message) => ToolMessage.isInstance(message) && message.tool_call_id === 'off',
    )
    expect(off?.text).toContain('call_not_in_plan')
    expect(result.messages.at(-1)?.text).toBe('Copied.')
  })

  it('should throw a PlanCompilationError when no plan is approved', async () => {
    const plannerModel = new FakeListChatModel({
      responses: [JSON.stringify({ steps: [{ id: 'x', tool: 'format_disk', args: {} }] })],
    })
    const model = fakeModel()
    const error = await planAndRun({
      task: 'Break things',
      model,
      plannerModel,
      tools: workspace.tools,
      policy: workspace.policy(),
      maxReplans: 0,
    }).catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(PlanCompilationError)
    expect((error as PlanCompilationError).issues[0]?.code).toBe('unknown_tool')
    expect(model.callCount).toBe(0)
    expect(workspace.ran).toEqual([])
  })
})
