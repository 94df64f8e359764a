import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMcpCallGuard } from './create-mcp-call-guard.js'

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

  it('should need a policy or a compiler', async () => {
    await expect(createMcpCallGuard({})).rejects.toThrow('needs a policy or a compiler')
  })
})
