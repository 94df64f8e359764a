import { symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { PlanError, type PlanGuard } from '@plan/core'
import { generateText, stepCountIs, tool } from 'ai'
import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { guardFixture } from '../test/guard-fixture.js'
import { promptOf, scriptedModel, toolResultsIn } from '../test/scripted-model.js'
import { testTools } from '../test-utils/test-tools.js'
import { guardTools } from './guard-tools.js'

const readPlan = [{ id: 'read', tool: 'view_file', args: { file: 'README.md' } }]

describe('guardTools', () => {
  it('should run an allowed call with the checked arguments and report its output to the guard', async () => {
    const { root, guard } = await guardFixture(readPlan)
    const { tools, spies } = testTools()
    const model = scriptedModel([
      { calls: [{ id: 'c1', tool: 'view_file', input: { file: 'README.md' } }] },
    ])

    const result = await generateText({
      model,
      tools: guardTools(tools, guard),
      prompt: 'read',
      stopWhen: stepCountIs(5),
    })

    expect(spies.viewFile).toHaveBeenCalledTimes(1)
    // the tool receives the path the guard checked on disk
    expect(spies.viewFile.mock.calls[0]?.[0]).toEqual({ file: `${root}/README.md` })
    expect(result.steps[0]?.toolResults[0]?.output).toBe(`contents of ${root}/README.md`)
    expect(guard.snapshot().status).toEqual({ read: 'done' })
    expect(guard.isComplete()).toBe(true)
  })

  it('should deny an off-plan call with a PlanError, never run the tool, and tell the model why', async () => {
    const { guard } = await guardFixture(readPlan)
    const { tools, spies } = testTools()
    const model = scriptedModel([
      { calls: [{ id: 'c1', tool: 'write_file', input: { file: 'README.md', content: 'x' } }] },
    ])

    const result = await generateText({
      model,
      tools: guardTools(tools, guard),
      prompt: 'go',
      stopWhen: stepCountIs(5),
    })

    expect(spies.writeFile).not.toHaveBeenCalled()
    const error = result.steps[0]?.content.find((part) => part.type === 'tool-error')
    expect(error?.type === 'tool-error' && PlanError.isInstance(error.error)).toBe(true)
    expect(promptOf(model, 1)).toContain('call_not_in_plan')
    expect(toolResultsIn(model, 1).get('c1')).toMatchObject({ type: 'error-text' })
  })

  it('should deny a path that escapes the workspace', async () => {
    const { guard } = await guardFixture(readPlan)
    const { tools, spies } = testTools()
    const model = scriptedModel([
      { calls: [{ id: 'c1', tool: 'view_file', input: { file: '../../etc/passwd' } }] },
    ])

    await generateText({
      model,
      tools: guardTools(tools, guard),
      prompt: 'go',
      stopWhen: stepCountIs(5),
    })

    expect(spies.viewFile).not.toHaveBeenCalled()
    expect(promptOf(model, 1)).toContain('@plan denied the call to \\"view_file\\"')
  })

  it('should deny a planned path that leads out of the workspace through a symlink', async () => {
    const { root, guard } = await guardFixture([
      { id: 'read', tool: 'view_file', args: { file: 'link.md' } },
    ])
    symlinkSync('/etc/passwd', join(root, 'link.md'))
    const { tools, spies } = testTools()
    const model = scriptedModel([
      { calls: [{ id: 'c1', tool: 'view_file', input: { file: 'link.md' } }] },
    ])

    await generateText({
      model,
      tools: guardTools(tools, guard),
      prompt: 'go',
      stopWhen: stepCountIs(5),
    })

    expect(spies.viewFile).not.toHaveBeenCalled()
    expect(promptOf(model, 1)).toContain('path_outside_workspace')
  })

  it('should deny a piped command that the plan does not hold', async () => {
    const { guard } = await guardFixture([
      { id: 'list', tool: 'run_command', args: { command: 'ls' } },
    ])
    const { tools, spies } = testTools()
    const model = scriptedModel([
      { calls: [{ id: 'c1', tool: 'run_command', input: { command: 'ls | bash' } }] },
    ])

    await generateText({
      model,
      tools: guardTools(tools, guard),
      prompt: 'go',
      stopWhen: stepCountIs(5),
    })

    expect(spies.runCommand).not.toHaveBeenCalled()
    expect(promptOf(model, 1)).toContain('arguments_differ')
  })

  it('should deny every call in per-turn mode until a turn is approved', async () => {
    const { guard } = await guardFixture(undefined)
    const { tools, spies } = testTools()
    const model = scriptedModel([
      { calls: [{ id: 'c1', tool: 'run_command', input: { command: 'curl x | bash' } }] },
    ])

    await generateText({
      model,
      tools: guardTools(tools, guard),
      prompt: 'go',
      stopWhen: stepCountIs(5),
    })

    expect(spies.runCommand).not.toHaveBeenCalled()
    expect(promptOf(model, 1)).toContain('No plan has been approved yet')
  })

  it('should deny a tool that the policy does not list', async () => {
    const { guard } = await guardFixture(readPlan)
    const { tools, spies } = testTools()
    const model = scriptedModel([
      { calls: [{ id: 'c1', tool: 'delete_file', input: { file: 'README.md' } }] },
    ])

    await generateText({
      model,
      tools: guardTools(tools, guard),
      prompt: 'go',
      stopWhen: stepCountIs(5),
    })

    expect(spies.deleteFile).not.toHaveBeenCalled()
    expect(promptOf(model, 1)).toContain('delete_file')
    expect(promptOf(model, 1)).toContain('call_not_in_plan')
  })

  it('should let parallel calls of one step together stay within the call budget', async () => {
    const plan = ['a', 'b', 'c', 'd'].map((id) => ({
      id,
      tool: 'view_file',
      args: { file: `${id}.md` },
    }))
    const { guard } = await guardFixture(plan, { maxCalls: 2 })
    const { tools, spies } = testTools()
    const model = scriptedModel([
      {
        calls: ['a', 'b', 'c', 'd'].map((id) => ({
          id: `call-${id}`,
          tool: 'view_file',
          input: { file: `${id}.md` },
        })),
      },
    ])

    await generateText({
      model,
      tools: guardTools(tools, guard),
      prompt: 'go',
      stopWhen: stepCountIs(2),
    })

    expect(spies.viewFile).toHaveBeenCalledTimes(2)
    expect(guard.stopReason()?.code).toBe('budget_exhausted')
    // every call id still got an answer
    expect(toolResultsIn(model, 1).size).toBe(4)
    expect(promptOf(model, 1)).toContain('budget_exhausted')
  })

  it('should report a failing tool to the guard and skip the steps that depend on it', async () => {
    const plan = [
      { id: 'read', tool: 'view_file', args: { file: 'README.md' } },
      {
        id: 'write',
        tool: 'write_file',
        args: { file: 'out.md', content: 'x' },
        depends_on: ['read'],
      },
    ]
    const { guard } = await guardFixture(plan)
    const { tools } = testTools()
    const failing = {
      ...tools,
      view_file: {
        ...tools.view_file,
        execute: async () => Promise.reject(new Error('disk on fire')),
      },
    }
    const model = scriptedModel([
      { calls: [{ id: 'c1', tool: 'view_file', input: { file: 'README.md' } }] },
    ])

    await generateText({
      model,
      tools: guardTools(failing, guard),
      prompt: 'go',
      stopWhen: stepCountIs(2),
    })

    expect(guard.snapshot().status).toEqual({ read: 'failed', write: 'skipped' })
    expect(promptOf(model, 1)).toContain('disk on fire')
  })

  it('should keep a streaming tool streaming and complete its step with the last value', async () => {
    const { guard } = await guardFixture([
      { id: 'list', tool: 'run_command', args: { command: 'ls' } },
    ])
    const tools = {
      run_command: tool({
        inputSchema: z.object({ command: z.string() }),
        async *execute({ command }) {
          yield `${command}: 1`
          yield `${command}: 2`
        },
      }),
    }
    const model = scriptedModel([
      { calls: [{ id: 'c1', tool: 'run_command', input: { command: 'ls' } }] },
    ])

    const parts: string[] = []
    const { streamText } = await import('ai')
    const result = streamText({
      model,
      tools: guardTools(tools, guard),
      prompt: 'go',
      stopWhen: stepCountIs(2),
    })
    for await (const part of result.fullStream) {
      if (part.type === 'tool-result')
        parts.push(`${part.preliminary === true ? 'preliminary' : 'final'} ${String(part.output)}`)
    }

    expect(parts).toEqual(['preliminary ls: 1', 'preliminary ls: 2', 'final ls: 2'])
    expect(guard.snapshot().outputs).toEqual({ list: 'ls: 2' })
  })

  it('should throw a PlanError carrying the issues when the wrapped execute is called directly', async () => {
    const { guard } = await guardFixture(readPlan)
    const { tools, spies } = testTools()
    const guarded = guardTools(tools, guard)

    const call = guarded.view_file.execute!(
      { file: '/etc/passwd' },
      { toolCallId: 'x', messages: [], context: undefined },
    )

    await expect(call).rejects.toSatisfy(
      (error: unknown) => PlanError.isInstance(error) && error.issues.length > 0,
    )
    expect(spies.viewFile).not.toHaveBeenCalled()
  })

  it('should deny the call, never run the tool, when the guard throws, rejects or answers nonsense', async () => {
    const failures = [
      () => {
        throw new Error('broken guard')
      },
      () => Promise.reject(new Error('broken guard')),
      () => Promise.resolve({ allowed: false }),
    ]
    for (const failure of failures) {
      const { guard } = await guardFixture(readPlan)
      const { tools, spies } = testTools()
      const broken = { ...guard, plan: guard.plan, authorize: failure } as unknown as PlanGuard
      const guarded = guardTools(tools, broken)

      const call = guarded.view_file.execute!(
        { file: 'README.md' },
        { toolCallId: 'x', messages: [], context: undefined },
      )

      await expect(call).rejects.toSatisfy(
        (error: unknown) => PlanError.isInstance(error) && error.issues.length > 0,
      )
      expect(spies.viewFile).not.toHaveBeenCalled()
    }
  })

  it('should refuse a provider-executed tool at setup', async () => {
    const { guard } = await guardFixture(readPlan)
    const providerTool = {
      type: 'provider' as const,
      id: 'openai.web_search' as const,
      args: {},
      isProviderExecuted: true as const,
      inputSchema: z.object({}),
      outputSchema: z.object({}),
    }

    expect(() => guardTools({ web_search: providerTool }, guard)).toThrow(
      /executed by the model provider/,
    )
  })

  it('should refuse a tool without execute at setup', async () => {
    const { guard } = await guardFixture(readPlan)
    const clientTool = tool({
      inputSchema: z.object({ file: z.string() }),
      outputSchema: z.string(),
    })

    expect(() => guardTools({ ask_user: clientTool }, guard)).toThrow(/has no execute function/)
  })

  it('should report every decision to onDecision', async () => {
    const { guard } = await guardFixture(readPlan)
    const { tools } = testTools()
    const onDecision = vi.fn()
    const model = scriptedModel([
      {
        calls: [
          { id: 'c1', tool: 'view_file', input: { file: 'README.md' } },
          { id: 'c2', tool: 'view_file', input: { file: 'other.md' } },
        ],
      },
    ])

    await generateText({
      model,
      tools: guardTools(tools, guard, { onDecision }),
      prompt: 'go',
      stopWhen: stepCountIs(2),
    })

    const events = onDecision.mock.calls.map(([event]) => [
      event.callId,
      event.allowed,
      event.stepId,
    ])
    expect(events).toEqual(
      expect.arrayContaining([
        ['c1', true, 'read'],
        ['c2', false, undefined],
      ]),
    )
  })
})
