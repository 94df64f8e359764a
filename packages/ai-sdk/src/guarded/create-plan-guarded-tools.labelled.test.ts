import { generateText, stepCountIs } from 'ai'
import { describe, expect, it } from 'vitest'
import { promptOf, scriptedModel } from '../test/scripted-model.js'
import { createTestWorkspace, testPolicy } from '../test/test-workspace.js'
import { testTools } from '../test-utils/test-tools.js'
import { createPlanGuardedTools } from './create-plan-guarded-tools.js'

async function runTests(labelledFiles?: Record<string, readonly string[]>) {
  const { tools, spies } = testTools()
  const guarded = await createPlanGuardedTools({
    tools,
    policy: testPolicy((await createTestWorkspace()).root),
    ...(labelledFiles === undefined ? {} : { labelledFiles }),
  })
  const model = scriptedModel([
    { calls: [{ id: 't', tool: 'run_command', input: { command: 'npm test' } }] },
    { text: 'Done.' },
  ])
  await generateText({
    model,
    ...guarded,
    stopWhen: [guarded.stopWhen, stepCountIs(4)],
    prompt: 'go',
  })
  return { spies, model }
}

describe('createPlanGuardedTools with labelledFiles', () => {
  it('should refuse a command that runs a file an earlier run wrote from untrusted data', async () => {
    const { spies, model } = await runTests({ 'test/x.test.js': ['file:README.md'] })
    expect(spies.runCommand).not.toHaveBeenCalled()
    expect(promptOf(model, 1)).toContain('untrusted_flow')
    expect(promptOf(model, 1)).toContain('test/x.test.js (from file:README.md)')
  })

  it('should run the command when no file is labelled', async () => {
    const { spies } = await runTests()
    expect(spies.runCommand).toHaveBeenCalledTimes(1)
  })
})
