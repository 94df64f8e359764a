import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  type AuditSink,
  createPlanCompiler,
  createPlanGuard,
  executePlan,
  PlanError,
} from '@plan/core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createFileAuditSink } from './create-file-audit-sink.js'
import { createMemoryAuditSink } from './create-memory-audit-sink.js'
import { verifyAuditLog } from './verify-audit-log.js'

const policy = {
  version: 1 as const,
  workspace: { roots: ['/srv/repo'] },
  tools: {
    echo: { args: { text: { type: 'string' as const } }, output: { trust: 'trusted' as const } },
  },
  budgets: { maxCalls: 1 },
}

describe('createFileAuditSink', () => {
  let folder: string
  let file: string

  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'plan-audit-'))
    file = join(folder, 'audit.jsonl')
  })

  afterEach(() => {
    rmSync(folder, { recursive: true, force: true })
  })

  it('should append one verified line per decision, each on disk when write returns', () => {
    const sink = createFileAuditSink(file)
    sink.write({ type: 'step_released', stepId: 'a' })
    // Read before close: the line is written synchronously.
    expect(readFileSync(file, 'utf8').split('\n')).toHaveLength(2)
    sink.write({ type: 'step_released', stepId: 'b' })
    sink.close()
    expect(verifyAuditLog(readFileSync(file, 'utf8'))).toMatchObject({ valid: true, count: 2 })
  })

  it('should continue the chain of an existing log after a restart', () => {
    const first = createFileAuditSink(file)
    first.write({ type: 'step_released', stepId: 'a' })
    first.close()
    const second = createFileAuditSink(file, { verify: true })
    expect(second.head.seq).toBe(1)
    second.write({ type: 'step_released', stepId: 'b' })
    second.close()
    expect(verifyAuditLog(readFileSync(file, 'utf8'))).toMatchObject({ valid: true, count: 2 })
  })

  it('should refuse to extend a log whose last line is truncated or that does not verify', () => {
    const sink = createFileAuditSink(file)
    sink.write({ type: 'step_released', stepId: 'a' })
    sink.close()
    appendFileSync(file, '{"seq":2,"ti')
    expect(() => createFileAuditSink(file)).toThrow(/truncated/)
    writeFileSync(file, `${readFileSync(file, 'utf8').split('\n')[0]?.replace('"a"', '"z"')}\n`)
    expect(() => createFileAuditSink(file)).not.toThrow()
    writeFileSync(file, '{"seq":1,"time":"x","prev":"0","event":{}}\n{"seq":2}\n')
    expect(() => createFileAuditSink(file, { verify: true })).toThrow(PlanError)
  })
})

describe('createMemoryAuditSink', () => {
  it('should record every guard decision in a chain that verifies', async () => {
    const compiler = await createPlanCompiler(policy)
    const audit = createMemoryAuditSink()
    const guard = createPlanGuard(
      compiler.compile([
        { id: 'a', tool: 'echo', args: { text: 'one' } },
        { id: 'b', tool: 'echo', args: { text: 'two' }, depends_on: ['a'] },
      ]),
      { compiler, audit },
    )
    await guard.authorize({ tool: 'echo', args: { text: 'nope' } })
    const allowed = await guard.authorize({ tool: 'echo', args: { text: 'one' } })
    if (allowed.allowed) guard.complete(allowed.stepId, 'done')
    await guard.authorize({ tool: 'echo', args: { text: 'two' } })
    expect(audit.events.map((event) => event.type)).toEqual([
      'plan_approved',
      'call_denied',
      'call_allowed',
      'step_completed',
      'run_stopped',
      'call_denied',
    ])
    expect(verifyAuditLog(audit.lines).valid).toBe(true)
  })

  it('should record an executor run from start to end', async () => {
    const compiler = await createPlanCompiler({ ...policy, budgets: {} })
    const audit = createMemoryAuditSink()
    const plan = compiler.compile([{ id: 'a', tool: 'echo', args: { text: 'one' } }])
    const result = await executePlan(plan, { echo: () => 'ok' }, { compiler, audit })
    expect(result.status).toBe('completed')
    expect(audit.events.map((event) => event.type)).toEqual([
      'plan_approved',
      'run_started',
      'call_allowed',
      'step_completed',
      'run_ended',
    ])
  })

  it('should deny a call, and stop the run, when the decision cannot be written', async () => {
    const compiler = await createPlanCompiler({ ...policy, budgets: {} })
    let failing = false
    const audit: AuditSink = {
      write() {
        if (failing) throw new Error('disk full')
      },
    }
    const guard = createPlanGuard(
      compiler.compile([{ id: 'a', tool: 'echo', args: { text: 'one' } }]),
      {
        compiler,
        audit,
      },
    )
    failing = true
    const decision = await guard.authorize({ tool: 'echo', args: { text: 'one' } })
    expect(decision.allowed ? 'allowed' : decision.issue.code).toBe('audit_failed')
    failing = false
    const again = await guard.authorize({ tool: 'echo', args: { text: 'one' } })
    expect(again.allowed ? 'allowed' : again.issue.code).toBe('audit_failed')
  })

  it('should refuse to start without a sink when the policy requires an audit log', async () => {
    const compiler = await createPlanCompiler({ ...policy, audit: { required: true } })
    const plan = compiler.compile([{ id: 'a', tool: 'echo', args: { text: 'one' } }])
    expect(() => createPlanGuard(plan, { compiler })).toThrow(/audit/)
  })
})
