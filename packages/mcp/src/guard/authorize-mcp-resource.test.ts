import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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
