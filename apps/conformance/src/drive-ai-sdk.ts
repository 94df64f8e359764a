import { readFile, writeFile } from 'node:fs/promises'
import { createPlanGuardedTools } from '@plan/ai-sdk'
import { createTestWorkspace, scriptedModel } from '@plan/ai-sdk/test'
import { generateText, stepCountIs, tool } from 'ai'
import { z } from 'zod'
import { auditTrail, decisions, type Outcome, recorder, type Scenario } from './scenario.js'

function recordingTools(record: (tool: string, value: string) => void) {
  return {
    view_file: tool({
      inputSchema: z.object({ file: z.string() }),
      execute: async ({ file }) => {
        record('view_file', file)
        return readFile(file, 'utf8')
      },
    }),
    write_file: tool({
      inputSchema: z.object({ file: z.string(), content: z.string() }),
      execute: async ({ file, content }) => {
        record('write_file', file)
        await writeFile(file, content)
        return { written: file, bytes: content.length }
      },
    }),
    run_command: tool({
      inputSchema: z.object({ command: z.string() }),
      execute: async ({ command }) => {
        record('run_command', command)
        return `ran ${command}`
      },
    }),
  }
}

/** Runs the scenario through `generateText` with `createPlanGuardedTools`, one call a step. */
export async function driveAiSdk(scenario: Scenario): Promise<Outcome> {
  await using workspace = await createTestWorkspace()
  const { ran, record } = recorder(workspace.root)
  const { calls, turns, onDecision } = decisions()
  const { audit, trail } = auditTrail()
  const guarded = await createPlanGuardedTools({
    tools: recordingTools(record),
    policy: scenario.policy(workspace.root),
    ...(scenario.plan === undefined ? {} : { plan: [...scenario.plan] }),
    ...(scenario.maskTools === undefined ? {} : { maskTools: scenario.maskTools }),
    onDecision,
    audit,
  })
  const model = scriptedModel([
    ...scenario.calls.map((call, index) => ({
      calls: [{ id: `call_${index}`, tool: call.tool, input: { ...call.args } }],
    })),
    { text: 'Done.' },
  ])
  await generateText({
    model,
    tools: guarded.tools,
    toolApproval: guarded.toolApproval,
    prepareStep: guarded.prepareStep,
    stopWhen: [guarded.stopWhen, stepCountIs(scenario.calls.length + 1)],
    prompt: 'Do the task.',
  })
  return { calls, turns, audit: trail, ran }
}
