import { AIMessage, HumanMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { trace } from '@opentelemetry/api'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { createAgent } from 'langchain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { planGuardMiddleware } from '../middleware/plan-guard-middleware.js'
import { type AgentWorkspace, createAgentWorkspace } from '../test-utils/workspace.js'

describe('reportDecision', () => {
  let workspace: AgentWorkspace

  beforeEach(async () => {
    workspace = await createAgentWorkspace()
  })

  afterEach(async () => {
    trace.disable()
    await workspace.cleanup()
  })

  it('should trace each call of a real agent as an execute_tool span, and each turn as a plan', async () => {
    const exporter = new InMemorySpanExporter()
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    )
    const model = fakeModel()
      .respondWithTools([{ name: 'view_file', args: { file: 'README.md' }, id: 'c1' }])
      .respondWithTools([{ name: 'view_file', args: { file: '../../etc/passwd' }, id: 'c2' }])
      .respond(new AIMessage('Done.'))
    const agent = createAgent({
      model,
      tools: workspace.tools,
      middleware: [planGuardMiddleware({ policy: workspace.policy() })],
    })
    await agent.invoke({ messages: [new HumanMessage('Do the task.')] })

    const spans = exporter.getFinishedSpans()
    const calls = spans.filter(
      (span) => span.attributes['gen_ai.operation.name'] === 'execute_tool',
    )
    expect(calls.map((span) => [span.name, span.attributes])).toEqual([
      [
        'execute_tool view_file',
        {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'view_file',
          'gen_ai.tool.call.id': 'c1',
          'plan.source': 'langchain',
          'plan.decision': 'allowed',
          'plan.step.id': expect.any(String),
        },
      ],
      [
        'execute_tool view_file',
        {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'view_file',
          'gen_ai.tool.call.id': 'c2',
          'plan.source': 'langchain',
          'plan.decision': 'denied',
          'plan.issue.codes': ['path_outside_workspace'],
          'error.type': 'path_outside_workspace',
        },
      ],
    ])
    const plans = spans.filter((span) => span.name === 'validate_plan')
    expect(
      plans.map((span) => [span.attributes['plan.kind'], span.attributes['plan.decision']]),
    ).toEqual([
      ['turn', 'approved'],
      ['turn', 'rejected'],
    ])
  })
})
