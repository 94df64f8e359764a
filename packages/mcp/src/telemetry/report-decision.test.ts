import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { trace } from '@opentelemetry/api'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createMcpCallGuard } from '../guard/create-mcp-call-guard.js'

describe('reportDecision', () => {
  let root: string

  beforeAll(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'plan-mcp-otel-')))
    await writeFile(join(root, 'a.txt'), 'a\n')
  })

  afterAll(async () => {
    await rm(root, { recursive: true, force: true })
  })

  afterEach(() => {
    trace.disable()
  })

  it('should trace each MCP call as an execute_tool span, allowed and denied', async () => {
    const exporter = new InMemorySpanExporter()
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    )
    const guard = await createMcpCallGuard({
      policy: {
        version: 1,
        workspace: { roots: [root] },
        tools: { read: { args: { path: { type: 'path' } } } },
      },
    })
    expect((await guard.authorize('read', { path: 'a.txt' }, '7')).allowed).toBe(true)
    expect((await guard.authorize('read', { path: '../x' }, '8')).allowed).toBe(false)

    const calls = exporter
      .getFinishedSpans()
      .filter((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool')
    expect(calls.map((span) => [span.name, span.attributes])).toEqual([
      [
        'execute_tool read',
        {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'read',
          'gen_ai.tool.call.id': '7',
          'plan.source': 'mcp',
          'plan.decision': 'allowed',
          'plan.step.id': expect.any(String),
        },
      ],
      [
        'execute_tool read',
        {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'read',
          'gen_ai.tool.call.id': '8',
          'plan.source': 'mcp',
          'plan.decision': 'denied',
          'plan.issue.codes': ['path_outside_workspace'],
          'error.type': 'path_outside_workspace',
        },
      ],
    ])
    expect(
      calls[1]?.events.map((event) => [event.name, event.attributes?.['plan.issue.path']]),
    ).toEqual([['plan.issue', 'args.path']])
  })
})
