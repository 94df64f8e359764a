import { PolicyError } from '@plan/core'
import { describe, expect, it } from 'vitest'
import { createMcpCallGuard } from './create-mcp-call-guard.js'

const policy = (allowed: string) => ({
  version: 1 as const,
  workspace: { roots: ['/srv/repo'] },
  tools: {
    read: { args: { path: { type: 'path' as const } }, examples: { allow: [{ path: allowed }] } },
  },
})

describe('createMcpCallGuard with policy examples', () => {
  it('should refuse a policy whose example it decides otherwise, naming the example', async () => {
    const error = await createMcpCallGuard({ policy: policy('/etc/shadow') }).catch(
      (thrown) => thrown,
    )
    expect(PolicyError.isInstance(error)).toBe(true)
    expect((error as PolicyError).issues).toEqual([
      expect.objectContaining({
        code: 'policy_example_failed',
        path: ['tools', 'read', 'examples', 'allow', 0],
        message: expect.stringContaining('{"path":"/etc/shadow"}'),
      }),
    ])
  })

  it('should start with a policy whose examples hold', async () => {
    const guard = await createMcpCallGuard({ policy: policy('src/index.ts') })
    expect(guard.mode).toBe('call')
  })
})
