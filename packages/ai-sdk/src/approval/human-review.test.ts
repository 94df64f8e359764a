import { generateText, type ModelMessage, stepCountIs } from 'ai'
import { describe, expect, it } from 'vitest'
import { createPlanGuardedTools } from '../guarded/create-plan-guarded-tools.js'
import { promptOf, scriptedModel } from '../test/scripted-model.js'
import { createTestWorkspace, testPolicy } from '../test/test-workspace.js'
import { testTools } from '../test-utils/test-tools.js'

const readThenList = () =>
  scriptedModel([
    { calls: [{ id: 'c1', tool: 'view_file', input: { file: 'README.md' } }] },
    { calls: [{ id: 'c2', tool: 'run_command', input: { command: 'ls' } }] },
    { text: 'Listed.' },
  ])

describe('planToolApproval (tainted runs)', () => {
  it('should deny an unlisted command after untrusted output, saying what is allowed', async () => {
    const { tools, spies } = testTools()
    const guarded = await createPlanGuardedTools({
      tools,
      policy: {
        ...testPolicy((await createTestWorkspace()).root),
        trust: { tainted: { commands: ['git status'] } },
      },
    })
    const model = readThenList()
    await generateText({
      model,
      ...guarded,
      stopWhen: [guarded.stopWhen, stepCountIs(5)],
      prompt: 'go',
    })
    expect(spies.runCommand).not.toHaveBeenCalled()
    expect(promptOf(model, 2)).toContain('tainted_run')
    expect(promptOf(model, 2)).toContain('Allowed now: git status')
  })

  it('should ask a human with onRefuse "ask" and run the call once approved', async () => {
    const { tools, spies } = testTools()
    const guarded = await createPlanGuardedTools({
      tools,
      policy: {
        ...testPolicy((await createTestWorkspace()).root),
        trust: { tainted: { onRefuse: 'ask' } },
      },
    })
    const model = readThenList()
    const options = {
      model,
      tools: guarded.tools,
      toolApproval: guarded.toolApproval,
      prepareStep: guarded.prepareStep,
      stopWhen: [guarded.stopWhen, stepCountIs(5)],
    }
    const first = await generateText({ ...options, prompt: 'go' })
    const request = first.steps
      .at(-1)
      ?.content.find((part) => part.type === 'tool-approval-request')
    expect(request).toMatchObject({ toolCall: { toolName: 'run_command' } })
    expect(spies.runCommand).not.toHaveBeenCalled()
    const messages: ModelMessage[] = [
      { role: 'user', content: 'go' },
      ...first.response.messages,
      {
        role: 'tool',
        content: [
          {
            type: 'tool-approval-response',
            approvalId: (request as { approvalId: string }).approvalId,
            approved: true,
          },
        ],
      },
    ]
    const second = await generateText({ ...options, messages })
    expect(spies.runCommand).toHaveBeenCalledTimes(1)
    expect(second.text).toBe('Listed.')
  })
})
