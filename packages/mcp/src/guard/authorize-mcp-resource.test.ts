import { createHash } from 'node:crypto'
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createMemoryAuditSink } from '@plan/audit'
import { createMemoryGuardStore, type GuardStore } from '@plan/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createResourceAuthorizer } from './authorize-mcp-resource.js'
import { createMcpCallGuard } from './create-mcp-call-guard.js'
import { createDurableSession } from './durable-session.js'
import { createResourceInspector, type ResourceInspector } from './resource-check.js'

describe('createResourceAuthorizer', () => {
  let root: string
  const policy = () => ({ version: 1 as const, workspace: { roots: [root] }, tools: {} })

  beforeAll(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'plan-mcp-resource-')))
    await writeFile(join(root, 'a.txt'), 'a\n')
  })

  afterAll(async () => {
    await rm(root, { recursive: true, force: true })
  })

  it('should end in the audit log a read the store could not record, with its issue', async () => {
    const audit = createMemoryAuditSink()
    const failing: GuardStore = {
      ...createMemoryGuardStore(),
      save: async () => {
        throw new Error('store down')
      },
    }
    const session = await createMcpCallGuard({
      policy: policy(),
      resources: 'workspace',
      audit,
      store: failing,
      runId: 'run-1',
    })
    const uri = `file://${root}/a.txt`
    const refused = await session.authorizeResource?.('resources/read', uri)
    expect(refused?.allowed ? 'allowed' : refused?.issues[0]?.code).toBe('store_failed')
    const message = refused?.allowed === false ? refused.issues[0]?.message : undefined
    const hash = createHash('sha256').update(JSON.stringify(message)).digest('hex')
    expect(audit.events.filter((event) => event.type.startsWith('resource_'))).toEqual([
      expect.objectContaining({ type: 'resource_allowed', uri }),
      expect.objectContaining({ type: 'resource_completed', uri, outputHash: hash }),
    ])
  })

  it('should refuse a URI whose check threw, with a hint', async () => {
    const session = await createMcpCallGuard({ policy: policy() })
    const real = createResourceInspector(session.compiler, {
      mode: 'workspace',
      schemes: undefined,
      onDisk: true,
    }) as ResourceInspector
    const throwing: ResourceInspector = {
      ...real,
      inspect: async () => {
        throw new Error('EIO')
      },
    }
    const authorize = createResourceAuthorizer(
      session.guard,
      throwing,
      await createDurableSession({}),
    )
    const refused = await authorize('resources/read', `file://${root}/a.txt`)
    expect(refused.allowed ? [] : refused.issues).toEqual([
      {
        code: 'path_invalid',
        message: '@plan could not check the resource: EIO',
        hint: expect.stringContaining('Try again'),
        path: ['uri'],
      },
    ])
  })
})
