import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { PolicyInput } from '@plan/core'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { createSandbox, type SandboxRunResult } from './create-sandbox.js'
import { createProcessQuota } from './process-quota.js'
import { DEFAULT_LIMITS } from './sandbox-limits.js'
import {
  createSandboxFixture,
  describeSandbox,
  type SandboxFixture,
} from './test-utils/sandbox-fixture.js'

const TIMEOUT = 120_000
const RUN = { timeoutMs: 60_000 }

function policyFor(root: string, limits: PolicyInput['sandbox'] = {}): PolicyInput {
  return { version: 1, workspace: { roots: [root] }, tools: {}, sandbox: limits }
}

function limitTargets(result: SandboxRunResult): (string | undefined)[] {
  return result.violations
    .filter((violation) => violation.kind === 'limit')
    .map((violation) => violation.target)
}

function bytesIn(folder: string): number {
  let total = 0
  for (const name of readdirSync(folder)) total += statSync(join(folder, name)).size
  return total
}

/** The pids cgroups this process made, which every sandbox removes when it ends. */
function leftCgroups(): string[] {
  try {
    return readdirSync('/sys/fs/cgroup/pids').filter((name) =>
      name.startsWith(`plan-sandbox-${process.pid}-`),
    )
  } catch {
    return []
  }
}

describeSandbox('createSandbox whole-sandbox quotas', () => {
  let fixture: SandboxFixture

  beforeEach(async () => {
    fixture = await createSandboxFixture()
  })

  afterEach(async () => {
    await fixture.cleanup()
  })

  const sandboxFor = (limits: NonNullable<PolicyInput['sandbox']>['limits']) =>
    createSandbox(policyFor(fixture.root, { limits }), {
      hostHome: fixture.home,
      path: '/usr/bin:/bin',
    })

  it('should set the disk, /tmp and file size quotas by default', () => {
    const sandbox = createSandbox(policyFor(fixture.root), { hostHome: fixture.home })
    expect(sandbox.config.limits).toEqual(DEFAULT_LIMITS)
    expect(DEFAULT_LIMITS).toEqual({
      fileSizeBytes: 1024 ** 3,
      openFiles: 4096,
      tmpBytes: 1024 ** 3,
      diskBytes: 8 * 1024 ** 3,
    })
  })

  it(
    'should kill a command that fills the disk past the whole-sandbox quota, in many files',
    async () => {
      const folder = join(fixture.root, 'fill')
      // 400 files of 2 MiB each (800 MiB), each far below the per-file limit.
      const result = await sandboxFor({ diskBytes: 16 * 1024 ** 2 }).run(
        [
          'sh',
          '-c',
          'mkdir fill; i=0; while [ $i -lt 400 ]; do head -c 2097152 /dev/zero > fill/f$i; sync fill/f$i; i=$((i+1)); done; echo FILLED',
        ],
        RUN,
      )
      expect(result.stdout).not.toContain('FILLED')
      expect(limitTargets(result)).toContain('diskBytes')
      expect(bytesIn(folder)).toBeLessThan(400 * 2097152)
    },
    TIMEOUT,
  )

  it(
    'should stop a fork bomb at the process quota, as root too, and leave nothing behind',
    async () => {
      const probe = createProcessQuota(1)
      probe?.close()
      // Without a pids cgroup there is no quota for root: never start a real bomb there.
      if (probe === undefined && process.getuid?.() === 0) return
      const result = await sandboxFor({ processes: 64, cpuSeconds: 20 }).run(
        ['sh', '-c', 'bomb() { bomb | bomb & }; bomb; sleep 3; echo SURVIVED'],
        { timeoutMs: 20_000 },
      )
      expect(limitTargets(result)).toContain('processes')
      await expect.poll(leftCgroups, { timeout: 10_000 }).toEqual([])
      const after = await sandboxFor({ processes: 64 }).run(['sh', '-c', 'echo ok'])
      expect(after.stdout).toBe('ok\n')
    },
    TIMEOUT,
  )

  it(
    'should still run ordinary work under the default quotas',
    async () => {
      const sandbox = createSandbox(policyFor(fixture.root), {
        hostHome: fixture.home,
        path: '/usr/bin:/bin',
      })
      const result = await sandbox.run(
        [
          'sh',
          '-c',
          'for i in 1 2 3 4 5 6 7 8; do (sleep 0.1; echo $i > n$i) & done; wait; cat n*',
        ],
        RUN,
      )
      expect(result.stdout).toBe('1\n2\n3\n4\n5\n6\n7\n8\n')
      expect(result.violations).toEqual([])
    },
    TIMEOUT,
  )
})
