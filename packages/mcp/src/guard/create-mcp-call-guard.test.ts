import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPlanCompiler, type DecisionEvent, PlanError } from '@plan/core'
import { refusalText } from '@plan/core/adapter'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMcpCallGuard, type McpGuardOptions } from './create-mcp-call-guard.js'

describe('createMcpCallGuard', () => {
  let root: string
  const policy = () => ({
    version: 1 as const,
    workspace: { roots: [root] },
    tools: { read: { args: { path: { type: 'path' as const } } } },
  })

  beforeAll(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'plan-mcp-guard-')))
    await writeFile(join(root, 'a.txt'), 'a\n')
  })

  afterAll(async () => {
    await rm(root, { recursive: true, force: true })
  })

  it('should send the path it checked on disk, not the one it was given', async () => {
    const guard = await createMcpCallGuard({ policy: policy() })
    const decision = await guard.authorize('read', { path: 'a.txt' })
    expect(decision.allowed && decision.args).toEqual({ path: join(root, 'a.txt') })
  })

  it('should carry budgets across a resumed session and still allow a repeated call', async () => {
    const first = await createMcpCallGuard({ policy: policy() })
    const call = await first.authorize('read', { path: 'a.txt' })
    if (!call.allowed) throw new Error('expected the first read to be allowed')
    call.finish({ content: [{ type: 'text', text: 'a\n' }] })
    const state = first.guard.snapshot()
    const resumed = await createMcpCallGuard({ policy: policy(), state })
    expect(resumed.mode).toBe('call')
    const again = await resumed.authorize('read', { path: 'a.txt' })
    expect(again.allowed).toBe(true)
    expect(resumed.guard.snapshot().calls).toBe(2)
  })

  it('should hand `deliver` the result it returns, then record it, as `finish` alone does', async () => {
    const answer = () => ({ content: [{ type: 'text', text: 'a\n' }] })
    const plain = await createMcpCallGuard({ policy: policy() })
    const delivering = await createMcpCallGuard({ policy: policy() })
    const first = await plain.authorize('read', { path: 'a.txt' })
    const second = await delivering.authorize('read', { path: 'a.txt' })
    if (!first.allowed || !second.allowed) throw new Error('expected both reads to be allowed')
    const delivered: unknown[] = []
    const returned = second.finish(answer(), (result) =>
      delivered.push(result, delivering.guard.snapshot().status[second.stepId]),
    )
    expect(delivered).toEqual([returned, 'running'])
    expect(delivered[0]).toBe(returned)
    expect(first.finish(answer())).toEqual(returned)
    const { startedAt: _delivering, ...recorded } = delivering.guard.snapshot()
    const { startedAt: _plain, ...expected } = plain.guard.snapshot()
    expect(recorded).toEqual(expected)
    expect(recorded.status[second.stepId]).toBe('done')
  })

  it('should report issues at the call’s arguments, without the internal step id', async () => {
    const guard = await createMcpCallGuard({ policy: policy() })
    const decision = await guard.authorize('read', { path: '../x', extra: 1 })
    expect(decision.allowed).toBe(false)
    const issues = decision.allowed ? [] : decision.issues
    expect(issues.map((issue) => [issue.code, issue.path])).toEqual(
      expect.arrayContaining([
        ['unknown_argument', ['args', 'extra']],
        ['path_outside_workspace', ['args', 'path']],
      ]),
    )
    for (const issue of issues) expect(issue.stepId).toBeUndefined()
  })

  it('should refuse a command that runs a file labelled by an earlier run (labelledFiles)', async () => {
    const shell = {
      ...policy(),
      tools: { run: { args: { command: { type: 'command' as const } } } },
      commands: { allow: ['npm'] },
    }
    const labelledFiles = { 'test/x.test.js': ['file:README.md'] }
    const labelled = await createMcpCallGuard({ policy: shell, labelledFiles })
    const refused = await labelled.authorize('run', { command: 'npm test' })
    expect(refused.allowed ? [] : refused.issues.map((issue) => issue.code)).toEqual([
      'untrusted_flow',
    ])
    const fresh = await createMcpCallGuard({ policy: shell })
    expect((await fresh.authorize('run', { command: 'npm test' })).allowed).toBe(true)
  })

  it("should label the files a server reports in its result's writtenFiles", async () => {
    const guard = await createMcpCallGuard({
      policy: {
        ...policy(),
        tools: {
          read: { args: { path: { type: 'path' as const } } },
          scaffold: { args: { name: { type: 'string' as const } } },
          run: { args: { command: { type: 'command' as const } } },
        },
        commands: { allow: ['npm'] },
        trust: { defaultOutput: 'untrusted' as const },
      },
    })
    const read = await guard.authorize('read', { path: 'a.txt' })
    if (!read.allowed) throw new Error('expected the read to be allowed')
    read.finish({ content: [{ type: 'text', text: 'write a test' }] })
    const made = await guard.authorize('scaffold', { name: 'x' })
    if (!made.allowed) throw new Error('expected the scaffold to be allowed')
    made.finish({
      content: [{ type: 'text', text: 'wrote test/gen.test.js' }],
      structuredContent: { writtenFiles: [join(root, 'test/gen.test.js')] },
    })
    const tests = await guard.authorize('run', { command: 'npm test' })
    expect(tests.allowed ? [] : tests.issues.map((issue) => issue.code)).toEqual(['untrusted_flow'])
  })

  it('should need a policy or a compiler', async () => {
    await expect(createMcpCallGuard({} as McpGuardOptions)).rejects.toThrow(
      'needs a policy or a compiler',
    )
  })

  it('should refuse both a policy and a compiler, with the code and hint of every adapter', async () => {
    const compiler = await createPlanCompiler(policy())
    const options = { policy: policy(), compiler } as unknown as McpGuardOptions
    const error = await createMcpCallGuard(options).catch((caught: unknown) => caught)
    expect(PlanError.isInstance(error)).toBe(true)
    expect((error as PlanError).code).toBe('invalid_configuration')
    expect((error as PlanError).issues[0]?.hint).toBe('Pass exactly one of `policy` or `compiler`.')
  })

  it('should report every decision as core’s call event, with the arguments sent', async () => {
    const events: DecisionEvent[] = []
    const guard = await createMcpCallGuard({
      policy: policy(),
      onDecision: (event) => events.push(event),
    })
    await guard.authorize('read', { path: 'a.txt' }, '7')
    await guard.authorize('read', { path: '../x' }, '8')
    expect(events.map((event) => event.kind)).toEqual(['call', 'call'])
    expect(events[0]).toMatchObject({
      tool: 'read',
      callId: '7',
      args: { path: 'a.txt' },
      allowed: true,
    })
    expect(events[1]).toMatchObject({ callId: '8', args: { path: '../x' }, allowed: false })
  })

  it('should answer a refusal with core’s refusal text and what the policy allows', async () => {
    const guard = await createMcpCallGuard({ policy: policy() })
    const decision = await guard.authorize('read', { path: '../x' })
    if (decision.allowed) throw new Error('expected a refusal')
    const text = decision.result.content[0]?.text ?? ''
    expect(text.startsWith(refusalText({ tool: 'read', issues: decision.issues }))).toBe(true)
    expect(text).toContain(`Allowed: the tools read; paths inside ${root}.`)
  })

  it('should list the ready steps of the plan after a refusal in plan mode', async () => {
    const plan = [{ id: 'first', tool: 'read', args: { path: 'a.txt' } }]
    const guard = await createMcpCallGuard({ policy: policy(), plan })
    const decision = await guard.authorize('read', { path: 'b.txt' })
    if (decision.allowed) throw new Error('expected a refusal')
    expect(decision.result.content[0]?.text).toContain('- step "first": read {"path":"a.txt"}')
  })
})
