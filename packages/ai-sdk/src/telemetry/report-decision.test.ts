import { trace } from '@opentelemetry/api'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { generateText, stepCountIs } from 'ai'
import { afterEach, describe, expect, it } from 'vitest'
import { guardFixture } from '../test/guard-fixture.js'
import { scriptedModel } from '../test/scripted-model.js'
import { testTools } from '../test-utils/test-tools.js'
import { guardTools } from '../tools/guard-tools.js'

describe('reportDecision', () => {
  afterEach(() => {
    trace.disable()
  })

  it('should trace each call of a real loop as an execute_tool span, allowed and denied', async () => {
    const exporter = new InMemorySpanExporter()
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    )
    const { guard } = await guardFixture([
      { id: 'read', tool: 'view_file', args: { file: 'README.md' } },
    ])
    const { tools } = testTools()
    const model = scriptedModel([
      { calls: [{ id: 'c1', tool: 'view_file', input: { file: 'README.md' } }] },
      { calls: [{ id: 'c2', tool: 'write_file', input: { file: 'README.md', content: 'x' } }] },
    ])
    await generateText({
      model,
      tools: guardTools(tools, guard),
      prompt: 'go',
      stopWhen: stepCountIs(5),
    })

    const calls = exporter
      .getFinishedSpans()
      .filter((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool')
    expect(calls.map((span) => [span.name, span.attributes])).toEqual([
      [
        'execute_tool view_file',
        {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'view_file',
          'gen_ai.tool.call.id': 'c1',
          'plan.source': 'ai-sdk',
          'plan.decision': 'allowed',
          'plan.step.id': 'read',
        },
      ],
      [
        'execute_tool write_file',
        {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'write_file',
          'gen_ai.tool.call.id': 'c2',
          'plan.source': 'ai-sdk',
          'plan.decision': 'denied',
          'plan.issue.codes': ['call_not_in_plan'],
          'error.type': 'call_not_in_plan',
        },
      ],
    ])
    expect(calls[1]?.events.map((event) => event.attributes?.['plan.issue.code'])).toEqual([
      'call_not_in_plan',
    ])
    expect(
      exporter.getFinishedSpans().find((span) => span.name === 'validate_plan')?.attributes,
    ).toMatchObject({
      'plan.decision': 'approved',
      'plan.kind': 'plan',
    })
  })
})
