import { generateText, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai'
import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { guardFixture } from '../test/guard-fixture.js'
import { promptOf, scriptedModel } from '../test/scripted-model.js'
import { testTools } from '../test-utils/test-tools.js'
import { guardTools } from '../tools/guard-tools.js'
import { planTurnMiddleware } from './plan-turn-middleware.js'

describe('planTurnMiddleware', () => {
  it('should submit a streamed batch as one plan before any call runs', async () => {
    const { guard } = await guardFixture(undefined)
    const { tools, spies } = testTools()
    const base = scriptedModel([
      {
        calls: [
          { id: 'c1', tool: 'view_file', input: { file: 'README.md' } },
          { id: 'c2', tool: 'view_file', input: { file: 'src/index.ts' } },
        ],
      },
    ])
    const model = wrapLanguageModel({
      model: base,
      middleware: planTurnMiddleware(guard, { tools }),
    })

    const result = streamText({
      model,
      tools: guardTools(tools, guard),
      prompt: 'go',
      stopWhen: stepCountIs(3),
    })
    await result.consumeStream()

    expect(spies.viewFile).toHaveBeenCalledTimes(2)
    expect(guard.plan?.steps.map((step) => step.id)).toEqual(['c1', 'c2'])
  })

  it('should deny every call of a streamed batch that the policy rejects', async () => {
    const { guard } = await guardFixture(undefined)
    const { tools, spies } = testTools()
    const base = scriptedModel([
      {
        calls: [
          { id: 'c1', tool: 'view_file', input: { file: 'README.md' } },
          { id: 'c2', tool: 'delete_file', input: { file: 'README.md' } },
        ],
      },
    ])
    const model = wrapLanguageModel({
      model: base,
      middleware: planTurnMiddleware(guard, { tools }),
    })

    const result = streamText({
      model,
      tools: guardTools(tools, guard),
      prompt: 'go',
      stopWhen: stepCountIs(3),
    })
    await result.consumeStream()

    expect(spies.viewFile).not.toHaveBeenCalled()
    expect(spies.deleteFile).not.toHaveBeenCalled()
    expect(promptOf(base, 1)).toContain('unknown_tool')
  })

  it('should not let a call of a rejected batch run as a step left over from an earlier turn', async () => {
    const { guard } = await guardFixture(undefined)
    // an earlier turn whose call never ran leaves a ready step behind
    guard.submitPlan(
      { steps: [{ id: 'old', tool: 'view_file', args: { file: 'README.md' } }] },
      'turn',
    )
    const { tools, spies } = testTools()
    const base = scriptedModel([
      {
        calls: [
          { id: 'c1', tool: 'view_file', input: { file: 'README.md' } },
          { id: 'c2', tool: 'view_file', input: { file: '../../etc/passwd' } },
        ],
      },
    ])
    const model = wrapLanguageModel({
      model: base,
      middleware: planTurnMiddleware(guard, { tools }),
    })

    const result = streamText({
      model,
      tools: guardTools(tools, guard),
      prompt: 'go',
      stopWhen: stepCountIs(3),
    })
    await result.consumeStream()

    expect(spies.viewFile).not.toHaveBeenCalled()
    expect(guard.readyTools()).toEqual(['view_file'])
    expect(promptOf(base, 1)).toContain('path_outside_workspace')
  })

  it('should leave calls the SDK will not run out of the plan', async () => {
    const { guard } = await guardFixture(undefined)
    const { tools, spies } = testTools()
    const base = scriptedModel([
      {
        calls: [
          { id: 'c1', tool: 'view_file', input: { file: 'README.md' } },
          { id: 'c2', tool: 'view_file', input: { path: 'wrong argument name' } },
          { id: 'c3', tool: 'no_such_tool', input: {} },
        ],
      },
    ])
    const model = wrapLanguageModel({
      model: base,
      middleware: planTurnMiddleware(guard, { tools }),
    })

    const result = streamText({
      model,
      tools: guardTools(tools, guard),
      prompt: 'go',
      stopWhen: stepCountIs(3),
    })
    await result.consumeStream()

    expect(guard.plan?.steps.map((step) => step.id)).toEqual(['c1'])
    expect(spies.viewFile).toHaveBeenCalledTimes(1)
  })

  it('should plan the input the tool will receive, after its schema transformed it', async () => {
    const { guard } = await guardFixture(undefined)
    const viewFile = vi.fn(async ({ file }: { file: string }) => `contents of ${file}`)
    const tools = {
      view_file: tool({
        inputSchema: z.object({ file: z.string().transform((file) => file.trim()) }),
        execute: viewFile,
      }),
    }
    const base = scriptedModel([
      { calls: [{ id: 'c1', tool: 'view_file', input: { file: '  README.md ' } }] },
    ])
    const model = wrapLanguageModel({
      model: base,
      middleware: planTurnMiddleware(guard, { tools }),
    })

    await generateText({
      model,
      tools: guardTools(tools, guard),
      prompt: 'go',
      stopWhen: stepCountIs(3),
    })

    expect(guard.plan?.steps.map((step) => step.args)).toEqual([{ file: 'README.md' }])
    // it ran: the call the SDK made matched the planned step
    expect(viewFile).toHaveBeenCalledTimes(1)
  })

  it('should wait for a schema with an async check, and leave out the calls it refuses', async () => {
    const { guard } = await guardFixture(undefined)
    const viewFile = vi.fn(async ({ file }: { file: string }) => `contents of ${file}`)
    const inputSchema = z
      .object({ file: z.string() })
      .refine(async ({ file }) => !file.startsWith('secret'), { message: 'no secrets' })
    const tools = { view_file: tool({ inputSchema, execute: viewFile }) }
    const base = scriptedModel([
      {
        calls: [
          { id: 'c1', tool: 'view_file', input: { file: 'README.md' } },
          { id: 'c2', tool: 'view_file', input: { file: 'secret.md' } },
        ],
      },
    ])
    const model = wrapLanguageModel({
      model: base,
      middleware: planTurnMiddleware(guard, { tools }),
    })

    await generateText({
      model,
      tools: guardTools(tools, guard),
      prompt: 'go',
      stopWhen: stepCountIs(3),
    })

    expect(guard.plan?.steps.map((step) => step.id)).toEqual(['c1'])
    expect(viewFile).toHaveBeenCalledTimes(1)
  })
})
