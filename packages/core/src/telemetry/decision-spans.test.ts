import { trace } from '@opentelemetry/api'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createPlanCompiler } from '../compile/create-plan-compiler.js'
import { executePlan } from '../execute/execute-plan.js'
import { createPlanGuard } from '../guard/create-plan-guard.js'
import type { PolicyInput } from '../schema/policy-schema.js'
import { traceCallDecision, traceSandboxViolations } from './decision-spans.js'

const policy: PolicyInput = {
  version: 1,
  workspace: { roots: ['/srv/repo'] },
  tools: { echo: { args: { text: { type: 'string' } } } },
  budgets: { maxCalls: 1 },
}

function summary(span: ReadableSpan) {
  return {
    name: span.name,
    attributes: span.attributes,
    events: span.events.map((event) => [event.name, event.attributes?.['plan.issue.code']]),
  }
}

describe('decision spans', () => {
  let exporter: InMemorySpanExporter

  beforeEach(() => {
    exporter = new InMemorySpanExporter()
  })

  afterEach(() => {
    trace.disable()
  })

  const register = () =>
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    )

  it('should emit nothing while no tracer provider is registered', () => {
    traceCallDecision(
      {
        tool: 'echo',
        callId: 'c1',
        allowed: true,
        stepId: 'a',
        issues: [],
      },
      'core',
    )
    register()
    expect(exporter.getFinishedSpans()).toEqual([])
  })

  it('should trace an executed plan: each call as execute_tool, budget exhaustion as events', async () => {
    register()
    const compiler = await createPlanCompiler(policy)
    const plan = compiler.compile([
      { id: 'a', tool: 'echo', args: { text: 'a' } },
      { id: 'b', tool: 'echo', args: { text: 'b' }, depends_on: ['a'] },
    ])
    const result = await executePlan(plan, { echo: (args) => args }, { compiler })
    expect(result.status).not.toBe('completed')
    const spans = exporter.getFinishedSpans().map(summary)
    expect(spans.find((span) => span.name === 'validate_plan')?.attributes).toMatchObject({
      'plan.operation.name': 'validate_plan',
      'plan.decision': 'approved',
      'plan.kind': 'plan',
      'plan.hash': plan.hash,
      'plan.step.count': 2,
    })
    const calls = spans.filter((span) => span.name === 'execute_tool echo')
    expect(calls.map((span) => span.attributes)).toEqual([
      {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'echo',
        'plan.source': 'core',
        'plan.decision': 'allowed',
        'plan.step.id': 'a',
      },
      {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'echo',
        'plan.source': 'core',
        'plan.decision': 'denied',
        'plan.issue.codes': ['budget_exhausted'],
        'error.type': 'budget_exhausted',
      },
    ])
    expect(calls[1]?.events).toEqual([
      ['plan.issue', 'budget_exhausted'],
      ['plan.budget_exhausted', 'budget_exhausted'],
    ])
  })

  it('should trace a rejected re-plan with its issues', async () => {
    register()
    const compiler = await createPlanCompiler(policy)
    const guard = createPlanGuard(
      compiler.compile([{ id: 'a', tool: 'echo', args: { text: 'a' } }]),
      {
        compiler,
      },
    )
    const submitted = guard.submitPlan([{ id: 'x', tool: 'rm', args: {} }], 'replan')
    expect(submitted.success).toBe(false)
    const rejected = exporter
      .getFinishedSpans()
      .map(summary)
      .filter((span) => span.attributes['plan.decision'] === 'rejected')
    expect(rejected).toEqual([
      {
        name: 'validate_plan',
        attributes: {
          'plan.operation.name': 'validate_plan',
          'plan.source': 'core',
          'plan.decision': 'rejected',
          'plan.kind': 'replan',
          'plan.issue.codes': ['unknown_tool'],
          'error.type': 'unknown_tool',
        },
        events: [['plan.issue', 'unknown_tool']],
      },
    ])
  })

  it('should trace the accesses a sandbox refused as plan.sandbox_violation events', () => {
    register()
    traceSandboxViolations(
      ['ls'],
      [{ kind: 'read', message: 'ls: cannot open directory /home', target: '/home' }],
    )
    const spans = exporter.getFinishedSpans().map(summary)
    expect(spans).toEqual([
      {
        name: 'run_sandboxed',
        attributes: {
          'plan.operation.name': 'run_sandboxed',
          'plan.source': 'core',
          'plan.sandbox.program': 'ls',
          'plan.sandbox.violation.count': 1,
          'error.type': 'sandbox_violation',
        },
        events: [['plan.sandbox_violation', undefined]],
      },
    ])
    expect(exporter.getFinishedSpans()[0]?.events[0]?.attributes).toMatchObject({
      'plan.sandbox.violation.kind': 'read',
      'plan.sandbox.violation.target': '/home',
    })
  })

  it('should record no span for a command the sandbox refused nothing', () => {
    register()
    traceSandboxViolations(['ls'], [])
    expect(exporter.getFinishedSpans()).toEqual([])
  })

  it('should decide as without tracing when the tracer provider throws', async () => {
    const broken = () => {
      throw new Error('broken exporter')
    }
    trace.setGlobalTracerProvider({
      getTracer: () => ({ startSpan: broken, startActiveSpan: broken }) as never,
    })
    const compiler = await createPlanCompiler(policy)
    const plan = compiler.compile([{ id: 'a', tool: 'echo', args: { text: 'a' } }])
    const result = await executePlan(plan, { echo: (args) => args }, { compiler })
    expect(result.status).toBe('completed')
    const guard = createPlanGuard(plan, { compiler })
    expect(guard.submitPlan([{ id: 'x', tool: 'rm', args: {} }], 'replan').success).toBe(false)
  })
})
