import { mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { trace } from '@opentelemetry/api'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { createPlanCompiler } from '@plan/core'
import { afterEach, describe, expect, it } from 'vitest'
import { createRunCommandTool } from './run-command-tool.js'

describe('run_command tracing', () => {
  afterEach(() => {
    trace.disable()
  })

  it('should trace the accesses a sandbox refused as plan.sandbox_violation events', async () => {
    const exporter = new InMemorySpanExporter()
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    )
    const root = await realpath(await mkdtemp(join(tmpdir(), 'plan-otel-')))
    try {
      const compiler = await createPlanCompiler({
        version: 1,
        workspace: { roots: [root] },
        tools: { run_command: { args: { command: { type: 'command' } } } },
        commands: { allow: ['ls'] },
      })
      const runCommand = createRunCommandTool(compiler, {
        runner: async () => ({
          exitCode: 1,
          signal: null,
          stdout: '',
          stderr: 'ls: cannot open directory /home: Permission denied',
          truncated: false,
          timedOut: false,
          violations: [
            { kind: 'read', message: 'ls: cannot open directory /home', target: '/home' },
          ],
        }),
      })
      await runCommand({ command: 'ls' }, {
        stepId: 's',
        signal: new AbortController().signal,
      } as never)
      const spans = exporter.getFinishedSpans().map((span) => ({
        name: span.name,
        attributes: span.attributes,
        events: span.events.map((event) => [event.name, event.attributes?.['plan.issue.code']]),
      }))
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
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  })
})
