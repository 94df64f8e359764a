import { modelStepToolPolicy } from '@plan/core'
import { generateText, stepCountIs } from 'ai'
import { describe, expect, it } from 'vitest'
import { createPlanGuardedTools } from '../guarded/create-plan-guarded-tools.js'
import { modelCalls, promptOf, scriptedModel } from '../test/scripted-model.js'
import { createTestWorkspace, testPolicy } from '../test/test-workspace.js'
import { testTools } from '../test-utils/test-tools.js'

const plan = [
  { id: 'read', tool: 'view_file', args: { file: 'README.md' } },
  {
    id: 'which',
    tool: 'extract',
    args: { input: { $ref: 'read' }, instruction: 'Which source file?', schema: { type: 'path' } },
  },
  { id: 'source', tool: 'view_file', args: { file: { $ref: 'which' } } },
]

async function runWith(answer: string) {
  const root = (await createTestWorkspace()).root
  const { tools, spies } = testTools()
  const policy = testPolicy(root)
  const extractor = scriptedModel([{ text: answer }])
  const guarded = await createPlanGuardedTools({
    tools,
    policy: { ...policy, tools: { ...policy.tools, ...modelStepToolPolicy() } },
    plan,
    extractionModel: extractor,
  })
  const model = scriptedModel([
    { calls: [{ id: 'c1', tool: 'view_file', input: { file: 'README.md' } }] },
    { calls: [{ id: 'c2', tool: 'view_file', input: { file: 'src/index.ts' } }] },
    { text: 'Read it.' },
  ])
  const result = await generateText({
    model,
    tools: guarded.tools,
    toolApproval: guarded.toolApproval,
    prepareStep: guarded.prepareStep,
    stopWhen: [guarded.stopWhen, stepCountIs(6)],
    prompt: 'Read the source file README names.',
  })
  return { result, spies, extractor, model, guarded }
}

describe('modelStepsWith', () => {
  it('should run an extraction step with the extraction model before the next step', async () => {
    const { result, spies, extractor } = await runWith('{"value": "src/index.ts"}')
    expect(spies.viewFile).toHaveBeenCalledTimes(2)
    expect(modelCalls(extractor)).toHaveLength(1)
    expect(promptOf(extractor, 0)).toContain('untrusted')
    expect(modelCalls(extractor)[0]?.tools ?? []).toEqual([])
    expect(result.text).toBe('Read it.')
  })

  it('should fail the step and skip its dependents when the answer leaves the schema', async () => {
    const { spies, guarded } = await runWith('{"value": "../../etc/passwd"}')
    expect(spies.viewFile).toHaveBeenCalledTimes(1)
    expect(guarded.guard.snapshot().status).toMatchObject({ which: 'failed', source: 'skipped' })
  })
})
