import { createPlanGuardedTools } from '@plan/ai-sdk'
import { createPlanCompiler, type DecisionEvent, type PolicyInput } from '@plan/core'
import { generateText, stepCountIs } from 'ai'
import { createDemoTools, type RunLog } from '../demo-tools.js'
import { aiSdkTools } from '../framework-tools.js'
import { type Proposal, summarize } from '../proposals.js'
import type { RealModel } from '../real-model.js'
import { scriptedAiSdkModel, type Turn } from '../scripted-models.js'

/** Runs a scripted (or real) AI SDK `generateText` loop with `createPlanGuardedTools`, per-turn mode. */
export async function runAiSdkAgent(options: {
  policy: PolicyInput
  turns: readonly Turn[]
  prompt: string
  /** A real model instead of the script (when an API key is set). */
  model?: RealModel | undefined
}) {
  const ran: RunLog = []
  const compiler = await createPlanCompiler(options.policy)
  const decisions: DecisionEvent[] = []
  const guarded = await createPlanGuardedTools({
    tools: aiSdkTools(createDemoTools(compiler, ran)),
    compiler,
    onDecision: (event) => {
      decisions.push(event)
    },
  })
  const result = await generateText({
    model:
      options.model === undefined
        ? scriptedAiSdkModel(options.turns)
        : (await import('@ai-sdk/openai')).openai(options.model.name),
    tools: guarded.tools,
    toolApproval: guarded.toolApproval,
    prepareStep: guarded.prepareStep,
    stopWhen: [guarded.stopWhen, stepCountIs(20)],
    prompt: options.prompt,
  })
  const proposals: Proposal[] = []
  for (const step of result.steps) {
    for (const call of step.toolCalls) {
      const decision = decisions.findLast(
        (entry) => entry.kind === 'call' && entry.callId === call.toolCallId,
      )
      const turn = decisions.findLast(
        (entry) =>
          entry.kind === 'turn' && !entry.allowed && entry.callIds.includes(call.toolCallId),
      )
      proposals.push({
        id: call.toolCallId,
        tool: call.toolName,
        args: call.input,
        allowed: decision?.allowed ?? false,
        issues: (decision ?? turn)?.issues ?? [],
      })
    }
  }
  return { ran, ...summarize(proposals), answer: result.text }
}
