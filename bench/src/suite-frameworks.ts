import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AIMessage, HumanMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { createPlanGuardedTools } from '@plan/ai-sdk'
import { createPlanCompiler } from '@plan/core'
import { planGuardMiddleware } from '@plan/langchain'
import { tool as aiTool, generateText, stepCountIs } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { createAgent, tool as langchainTool, toolCallLimitMiddleware } from 'langchain'
import { z } from 'zod'
import { type Row, round, roundSpread, type Spread, scaleSpread, timeRunsAsync } from './measure.ts'

// Runs per timed batch; each batch is one sample of the min / median / max.
const RUNS = 100

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
}

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

async function perRun(fn: () => Promise<unknown>): Promise<Spread> {
  const total = await timeRunsAsync(
    async () => {
      for (let index = 0; index < RUNS; index += 1) await fn()
    },
    5,
    1,
  )
  return scaleSpread(total, 1 / RUNS)
}

/** One agent run with one tool call, with and without the guard, in each framework. */
export async function frameworksSuite(): Promise<Row[]> {
  const root = await mkdtemp(join(tmpdir(), 'plan-bench-'))
  await writeFile(join(root, 'README.md'), '# bench\n')
  try {
    const compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: [root] },
      tools: { echo: { args: { text: { type: 'string' } } } },
      budgets: { maxCalls: 1000 },
    })
    const echo = langchainTool(async ({ text }: { text: string }) => text, {
      name: 'echo',
      description: 'Echo.',
      schema: z.object({ text: z.string() }),
    })
    const script = () =>
      fakeModel()
        .respondWithTools([{ name: 'echo', args: { text: 'hello' }, id: 'c1' }])
        .respond(new AIMessage('done'))
    const langchainRun =
      (
        middleware:
          | ReturnType<typeof planGuardMiddleware>[]
          | ReturnType<typeof toolCallLimitMiddleware>[],
      ) =>
      async () => {
        const agent = createAgent({ model: script(), tools: [echo], middleware })
        await agent.invoke({ messages: [new HumanMessage('go')] })
      }
    const bare = await perRun(langchainRun([]))
    const limit = await perRun(langchainRun([toolCallLimitMiddleware({ runLimit: 100 })]))
    const guarded = await perRun(langchainRun([planGuardMiddleware({ compiler })]))

    const aiEcho = {
      echo: aiTool({
        description: 'Echo.',
        inputSchema: z.object({ text: z.string() }),
        execute: async ({ text }: { text: string }) => text,
      }),
    }
    const aiBare = await perRun(async () => {
      await generateText({
        model: aiSdkModel(),
        tools: aiEcho,
        stopWhen: stepCountIs(5),
        prompt: 'go',
      })
    })
    const aiGuarded = await perRun(async () => {
      const guardedTools = await createPlanGuardedTools({ tools: aiEcho, compiler })
      await generateText({
        model: aiSdkModel(),
        tools: guardedTools.tools,
        toolApproval: guardedTools.toolApproval,
        prepareStep: guardedTools.prepareStep,
        stopWhen: [guardedTools.stopWhen, stepCountIs(5)],
        prompt: 'go',
      })
    })
    const row = (
      suiteCase: string,
      value: Spread,
      baseline: string,
      baselineValue: Spread,
    ): Row => ({
      suite: 'frameworks',
      case: suiteCase,
      value: round(value.median),
      valueSpread: roundSpread(value),
      unit: 'ms/run',
      baseline,
      baselineValue: round(baselineValue.median),
      baselineSpread: roundSpread(baselineValue),
      ratio: round(value.median / baselineValue.median),
      note: `adds ${round((value.median - baselineValue.median) * 1000)} µs per run (median − median) with one tool call`,
    })
    return [
      row(
        'LangChain createAgent + planGuardMiddleware (per-turn), fakeModel, 1 tool call',
        guarded,
        'the same agent without middleware',
        bare,
      ),
      row(
        'LangChain createAgent + toolCallLimitMiddleware (LangChain’s own)',
        limit,
        'the same agent without middleware',
        bare,
      ),
      row(
        'AI SDK generateText + createPlanGuardedTools (per-turn), MockLanguageModelV4, 1 tool call',
        aiGuarded,
        'the same call with the unwrapped tools',
        aiBare,
      ),
    ]
  } finally {
    await rm(root, { recursive: true, force: true })
  }
}
