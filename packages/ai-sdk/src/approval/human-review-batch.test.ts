import { generateText, type ModelMessage, stepCountIs } from 'ai'
import { describe, expect, it } from 'vitest'
import { createPlanGuardedTools } from '../guarded/create-plan-guarded-tools.js'
import { scriptedModel } from '../test/scripted-model.js'
import { createTestWorkspace, testPolicy } from '../test/test-workspace.js'
import { testTools } from '../test-utils/test-tools.js'

type Request = {
  type: string
  approvalId: string
  reason?: string
  isAutomatic?: boolean
  toolCall: { input: unknown }
}

async function askingRun(maxQuestions?: number) {
  const { tools, spies } = testTools()
  const guarded = await createPlanGuardedTools({
    tools,
    policy: {
      ...testPolicy((await createTestWorkspace()).root),
      trust: {
        tainted: {
          commands: ['ls'],
          onRefuse: 'ask',
          ...(maxQuestions === undefined ? {} : { maxQuestions }),
        },
      },
    },
  })
  const model = scriptedModel([
    { calls: [{ id: 'read', tool: 'view_file', input: { file: 'README.md' } }] },
    {
      calls: [
        { id: 'one', tool: 'run_command', input: { command: 'echo one' } },
        { id: 'list', tool: 'run_command', input: { command: 'ls' } },
        { id: 'two', tool: 'run_command', input: { command: 'echo two' } },
      ],
    },
    { text: 'Done.' },
  ])
  const options = {
    model,
    tools: guarded.tools,
    toolApproval: guarded.toolApproval,
    prepareStep: guarded.prepareStep,
    stopWhen: [guarded.stopWhen, stepCountIs(6)],
  }
  const first = await generateText({ ...options, prompt: 'go' })
  const content = first.steps.at(-1)?.content ?? []
  const requests = content.filter(
    (part): part is typeof part & Request =>
      part.type === 'tool-approval-request' && part.isAutomatic !== true,
  )
  const resume = (answers: readonly boolean[]) => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'go' },
      ...first.response.messages,
      {
        role: 'tool',
        content: requests.map((request, index) => ({
          type: 'tool-approval-response' as const,
          approvalId: request.approvalId,
          approved: answers[index] === true,
        })),
      },
    ]
    return generateText({ ...options, messages })
  }
  return { spies, first, requests, resume }
}

describe('createPlanGuardedTools with onRefuse "ask"', () => {
  it('should ask about every refusal of a step together, with the reason and the source', async () => {
    const { spies, first, requests, resume } = await askingRun()
    expect(first.steps).toHaveLength(2)
    expect(requests.map((request) => request.toolCall.input)).toEqual([
      { command: 'echo one' },
      { command: 'echo two' },
    ])
    expect(requests[0]?.reason).toMatch(/^@plan refused this call because/)
    expect(requests[0]?.reason).toContain('tainted_run')
    expect(requests[0]?.reason).toContain('file:README.md')
    expect(spies.runCommand.mock.calls.map(([input]) => input.command)).toEqual(['ls'])
    const second = await resume([true, false])
    expect(spies.runCommand.mock.calls.map(([input]) => input.command)).toEqual(['ls', 'echo one'])
    expect(second.text).toBe('Done.')
  })

  it('should stop the run instead of asking past maxQuestions', async () => {
    const { spies, first, requests, resume } = await askingRun(1)
    expect(requests.map((request) => request.toolCall.input)).toEqual([{ command: 'echo one' }])
    expect(JSON.stringify(first.steps.at(-1)?.content)).toContain('budget_exhausted')
    expect(spies.runCommand.mock.calls.map(([input]) => input.command)).toEqual(['ls'])
    // The run has stopped: an approval given afterwards runs nothing.
    await resume([true])
    expect(spies.runCommand.mock.calls.map(([input]) => input.command)).toEqual(['ls'])
  })
})
