import { readFileSync } from 'node:fs'
import { lstat, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { PolicyInput } from '@plan/core'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { createSandbox } from './create-sandbox.js'
import {
  createSandboxFixture,
  describeSandbox,
  type SandboxFixture,
} from './test-utils/sandbox-fixture.js'

const TIMEOUT = 60_000

function policyFor(root: string): PolicyInput {
  return { version: 1, workspace: { roots: [root] }, tools: {} }
}

describeSandbox('createSandbox host privileges', () => {
  let fixture: SandboxFixture

  beforeEach(async () => {
    fixture = await createSandboxFixture()
  })

  afterEach(async () => {
    await fixture.cleanup()
  })

  const sandboxFor = () =>
    createSandbox(policyFor(fixture.root), { hostHome: fixture.home, path: '/usr/bin:/bin' })

  it(
    'should refuse every write to /proc/sys and the other kernel files, core_pattern first',
    async () => {
      const pattern = readFileSync('/proc/sys/kernel/core_pattern', 'utf8')
      // Each write puts back the value already there, so a write that got through changes nothing.
      const result = await sandboxFor().run([
        'sh',
        '-c',
        [
          'cat /proc/sys/kernel/core_pattern > /proc/sys/kernel/core_pattern && echo WROTE core_pattern',
          'cat /proc/sys/kernel/hostname > /proc/sys/kernel/hostname && echo WROTE hostname',
          'cat /proc/sys/vm/drop_caches > /dev/null; echo 0 > /proc/sysrq-trigger && echo WROTE sysrq',
          'find /proc -path "/proc/[0-9]*" -prune -o -writable -type f -print 2>/dev/null | sed "s/^/WRITABLE /"',
          'grep -E "^(CapEff|CapPrm|CapBnd|NoNewPrivs):" /proc/self/status',
        ].join('\n'),
      ])
      expect(result.stdout).not.toMatch(/WROTE|WRITABLE/)
      expect(result.stderr).toMatch(/core_pattern: Read-only file system/)
      expect(result.stdout).toContain('CapEff:\t0000000000000000')
      expect(result.stdout).toContain('CapBnd:\t0000000000000000')
      expect(result.stdout).toContain('NoNewPrivs:\t1')
      expect(readFileSync('/proc/sys/kernel/core_pattern', 'utf8')).toBe(pattern)
    },
    TIMEOUT,
  )

  it(
    'should leave no setuid or setgid file for the host, and files owned by the agent user',
    async () => {
      const result = await sandboxFor().run([
        'sh',
        '-c',
        [
          'cp /bin/true t1 && chmod 4755 t1; chmod u+s t1; chmod g+s t1',
          'install -m 4755 /bin/true t2',
          'cp -p /bin/true t3 && chmod 6755 t3',
          'python3 -c "import os; os.close(os.open(\'t4\', os.O_CREAT | os.O_WRONLY, 0o4755))"',
          "perl -e \"sysopen(my \\$f, 't5', 0101, 06755); chmod 04755, 't5'\"",
          'mkdir d && chmod 2775 d',
          'echo ok > plain && chmod 755 plain && echo DONE',
        ].join('\n'),
      ])
      expect(result.stdout).toContain('DONE')
      expect(result.stderr).toMatch(/Operation not permitted/)
      for (const name of await readdir(fixture.root)) {
        const stats = await lstat(join(fixture.root, name))
        expect([name, stats.mode & 0o6000]).toEqual([name, 0])
        expect([name, stats.uid, stats.gid]).toEqual([name, process.getuid?.(), process.getgid?.()])
      }
      expect((await lstat(join(fixture.root, 'plain'))).mode & 0o777).toBe(0o755)
    },
    TIMEOUT,
  )
})
