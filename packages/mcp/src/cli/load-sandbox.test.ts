import { PlanError } from '@plan/core'
import { resolvePolicy } from '@plan/core/schemas'
import { describe, expect, it } from 'vitest'
import { spawnServerProcess } from '../proxy/spawn-server.js'
import { loadSandboxSpawn } from './load-sandbox.js'

const policy = resolvePolicy({ version: 1, workspace: { roots: ['/tmp'] }, tools: {} })

describe('loadSandboxSpawn', () => {
  it('should fail with a clear error when @plan/sandbox cannot be imported', async () => {
    const loading = loadSandboxSpawn(policy, () => Promise.reject(new Error('not found')))
    await expect(loading).rejects.toSatisfy(
      (error: unknown) =>
        PlanError.isInstance(error) && error.message.includes('requires @plan/sandbox'),
    )
  })

  it('should fail when the module has no createSandbox', async () => {
    await expect(loadSandboxSpawn(policy, async () => ({}))).rejects.toThrow(
      'createSandbox was not found',
    )
  })

  it('should build the sandbox from the policy and spawn through it', async () => {
    const calls: unknown[] = []
    const spawn = await loadSandboxSpawn(policy, async () => ({
      createSandbox: (given: unknown) => ({
        spawn: (argv: readonly string[], options: { cwd?: string }) => {
          calls.push({ given, argv, options })
          return spawnServerProcess([process.execPath, '-e', ''], options)
        },
      }),
    }))
    const child = spawn(['server', '--flag'], { cwd: '/tmp', env: { A: '1' } })
    await new Promise((resolve) => child.once('close', resolve))
    expect(calls).toEqual([
      { given: policy, argv: ['server', '--flag'], options: { cwd: '/tmp', env: { A: '1' } } },
    ])
  })
})
