import { createPlanGuardedTools } from '@plan/ai-sdk'
import type { PlanCompiler } from '@plan/core'
import {
  tool as aiTool,
  generateText,
  type LanguageModel,
  type LanguageModelMiddleware,
  stepCountIs,
  type ToolSet,
  wrapLanguageModel,
} from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { z } from 'zod'
import type { Run } from './interleave.ts'

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
}

/** A model that calls `echo` once, then answers. */
function aiSdkModel() {
  let calls = 0
  return new MockLanguageModelV4({
    doGenerate: async () => {
      calls += 1
      if (calls === 1) {
        return {
          content: [
            {
              type: 'tool-call' as const,
              toolCallId: 'c1',
              toolName: 'echo',
              input: JSON.stringify({ text: 'hello' }),
            },
          ],
          finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
          usage,
          warnings: [],
        }
      }
      return {
        content: [{ type: 'text' as const, text: 'done' }],
        finishReason: { unified: 'stop' as const, raw: 'stop' },
        usage,
        warnings: [],
      }
    },
  })
}

/**
 * The AI SDK's own cost of the hooks the guard uses, with hooks that do nothing: each tool's
 * `execute` wrapped, a `toolApproval` that approves, a `prepareStep` that hands over the model
 * wrapped in a pass-through middleware and narrows `activeTools`, and a `stopWhen`.
 */
function passThroughHooks(tools: ToolSet) {
  const wrapped: ToolSet = {}
  for (const [name, tool] of Object.entries(tools)) {
    const execute = tool.execute
    wrapped[name] = { ...tool, execute: async (input, options) => execute?.(input, options) }
  }
  const middleware: LanguageModelMiddleware = {
    specificationVersion: 'v4',
    wrapGenerate: async ({ doGenerate }) => doGenerate(),
  }
  const names = Object.keys(tools)
  return {
    tools: wrapped,
    toolApproval: async () => 'not-applicable' as const,
    prepareStep: ({ model }: { model: LanguageModel }) => ({
      model: wrapLanguageModel({ model: model as Exclude<LanguageModel, string>, middleware }),
      activeTools: [...names],
    }),
    stopWhen: () => false,
  }
}

/** The AI SDK arms, in row order. */
export const AI_SDK_ARMS = ['bare', 'hooks', 'guarded'] as const

/**
 * An AI SDK `generateText` run with one tool call: unwrapped, through pass-through hooks (the
 * SDK's own cost of the hook points), and guarded (set up per run); in {@link AI_SDK_ARMS} order.
 */
export function aiSdkRuns(compiler: PlanCompiler): Run[] {
  const echo = {
    echo: aiTool({
      description: 'Echo.',
      inputSchema: z.object({ text: z.string() }),
      execute: async ({ text }: { text: string }) => text,
    }),
  }
  const bareRun = async () => {
    await generateText({ model: aiSdkModel(), tools: echo, stopWhen: stepCountIs(5), prompt: 'go' })
  }
  const hooksRun = async () => {
    const hooks = passThroughHooks(echo)
    await generateText({
      model: aiSdkModel(),
      tools: hooks.tools,
      toolApproval: hooks.toolApproval,
      prepareStep: hooks.prepareStep,
      stopWhen: [hooks.stopWhen, stepCountIs(5)],
      prompt: 'go',
    })
  }
  const guardedRun = async () => {
    const guarded = await createPlanGuardedTools({ tools: echo, compiler })
    await generateText({
      model: aiSdkModel(),
      tools: guarded.tools,
      toolApproval: guarded.toolApproval,
      prepareStep: guarded.prepareStep,
      stopWhen: [guarded.stopWhen, stepCountIs(5)],
      prompt: 'go',
    })
  }
  return [bareRun, hooksRun, guardedRun]
}
