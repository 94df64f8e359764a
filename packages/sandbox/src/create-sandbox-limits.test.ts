import { spawnSync } from 'node:child_process'
import { chmod, mkdtemp, rm, stat, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import type { PolicyInput } from '@plan/core'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { bubblewrapArgs } from './bubblewrap-args.js'
import { checkSandbox, createSandbox, type SandboxRunResult } from './create-sandbox.js'
import { processLimitEnforced } from './process-limit-probe.js'
import { createProcessQuota } from './process-quota.js'
import { SandboxError } from './sandbox-error.js'
import { prlimitOptions } from './sandbox-limits.js'
import {
  createSandboxFixture,
  describeSandbox,
  type SandboxFixture,
} from './test-utils/sandbox-fixture.js'

// A safety net only: every command here stops at a limit or at its own bound long before it.
const TIMEOUT = 60_000
const RUN = { timeoutMs: 30_000 }

// Forks up to 200 sleeping children (bounded, so a limit that fails cannot hang the host),
// prints how many it started and why it stopped, then kills them.
const FORK_LOOP = [
  'perl',
  '-e',
  'my @pids; while (@pids < 200) { my $pid = fork; if (!defined $pid) { warn "fork: $!\\n"; last } if ($pid == 0) { sleep 30; exit 0 } push @pids, $pid } print "started ", scalar(@pids), "\\n"; kill "KILL", @pids',
]

function policyFor(root: string, extra: Partial<PolicyInput> = {}): PolicyInput {
  return { version: 1, workspace: { roots: [root] }, tools: {}, ...extra }
}

function programs(): { bwrap: string; prlimit: string } {
  const check = checkSandbox()
  if (!check.available) throw new Error(check.issue.message)
  return check
}

function limitTargets(result: SandboxRunResult): (string | undefined)[] {
  return result.violations
    .filter((violation) => violation.kind === 'limit')
    .map((violation) => violation.target)
}

describeSandbox('createSandbox limits', () => {
  let fixture: SandboxFixture

  beforeEach(async () => {
    fixture = await createSandboxFixture()
  })

  afterEach(async () => {
    await fixture.cleanup()
  })

  const sandboxFor = (extra: Partial<PolicyInput> = {}) =>
    createSandbox(policyFor(fixture.root, extra), { hostHome: fixture.home })

  it(
    'should kill a CPU spin with SIGXCPU at the CPU limit',
    async () => {
      const result = await sandboxFor().run(['sh', '-c', 'while :; do :; done'], {
        ...RUN,
        limits: { cpuSeconds: 1 },
      })
      expect(result).toMatchObject({ exitCode: 128 + 24, timedOut: false })
      expect(limitTargets(result)).toEqual(['cpuSeconds'])
    },
    TIMEOUT,
  )

  it(
    "should stop a write past the file size limit with SIGXFSZ, or EFBIG when it is ignored, from the policy's limit",
    async () => {
      const sandbox = sandboxFor({ sandbox: { limits: { fileSizeBytes: 100_000 } } })
      const killed = await sandbox.run(
        ['sh', '-c', 'head -c 1000000 /dev/zero > big; echo "head $?"'],
        RUN,
      )
      expect(killed.stdout).toBe(`head ${128 + 25}\n`)
      expect((await stat(join(fixture.root, 'big'))).size).toBe(100_000)
      const refused = await sandbox.run(
        ['sh', '-c', 'trap "" XFSZ; head -c 1000000 /dev/zero > big2'],
        // A caller cannot raise the policy's limit.
        { ...RUN, limits: { fileSizeBytes: 10_000_000 } },
      )
      expect(refused.exitCode).toBe(1)
      expect(refused.stderr).toMatch(/File too large/)
      expect(limitTargets(refused)).toEqual(['fileSizeBytes'])
      expect((await stat(join(fixture.root, 'big2'))).size).toBe(100_000)
      // Smaller files are written as usual.
      const small = await sandbox.run(['sh', '-c', 'head -c 1000 /dev/zero > small'], RUN)
      expect(small.exitCode).toBe(0)
    },
    TIMEOUT,
  )

  it(
    'should refuse to open files past the open files limit',
    async () => {
      // Opens /dev/null until the kernel refuses, and prints how many it held at most.
      const script =
        'my @held; while (open(my $handle, "<", "/dev/null")) { push @held, $handle; last if @held >= 100000 } print scalar(@held), " $!\\n"'
      const result = await sandboxFor().run(['perl', '-e', script], {
        ...RUN,
        limits: { openFiles: 32 },
      })
      const [held, reason] = result.stdout.trim().split(' ', 2)
      expect(Number(held)).toBeLessThan(32)
      expect(Number(held)).toBeGreaterThan(20)
      expect(result.stdout).toContain('Too many open files')
      expect(reason).toBe('Too')
      const defaults = await sandboxFor().run(['perl', '-e', script], RUN)
      expect(Number(defaults.stdout.split(' ')[0])).toBeLessThan(4096)
    },
    TIMEOUT,
  )

  it(
    'should stop a fork loop at the processes limit, and refuse to start where it cannot be enforced',
    async () => {
      const found = programs()
      const probe = createProcessQuota(1)
      probe?.close()
      if (probe !== undefined) {
        // A pids cgroup: the whole sandbox is counted, for root as for anyone.
        const result = await sandboxFor().run(FORK_LOOP, { ...RUN, limits: { processes: 20 } })
        expect(Number(/started (\d+)/.exec(result.stdout)?.[1])).toBeLessThan(20)
        expect(limitTargets(result)).toContain('processes')
        return
      }
      if (processLimitEnforced(found.prlimit, process.env.PATH ?? '')) {
        const result = await sandboxFor().run(FORK_LOOP, {
          ...RUN,
          limits: { processes: countOwnTasks() + 20 },
        })
        expect(Number(/started (\d+)/.exec(result.stdout)?.[1])).toBeLessThan(200)
        expect(limitTargets(result)).toContain('processes')
        return
      }
      // Root: the kernel does not count its processes, so the sandbox refuses to run.
      const error = await sandboxFor()
        .run(['true'], { limits: { processes: 50 } })
        .catch((caught: unknown) => caught)
      expect(SandboxError.isInstance(error)).toBe(true)
      expect((error as SandboxError).issues[0]).toMatchObject({
        code: 'sandbox_unavailable',
        path: ['limits', 'processes'],
      })
      // The same prlimit options and bubblewrap arguments, started as an ordinary user.
      const { stdout, stderr } = await forkLoopAsNobody(found)
      expect(Number(/^started (\d+)$/m.exec(stdout)?.[1])).toBeLessThan(16)
      expect(stderr).toContain('fork: Resource temporarily unavailable')
    },
    TIMEOUT,
  )

  it(
    'should cap the private /tmp (HOME and TMPDIR) at its size limit',
    async () => {
      const result = await sandboxFor({ sandbox: { limits: { tmpBytes: 1 << 20 } } }).run(
        ['sh', '-c', 'head -c 2000000 /dev/zero > "$TMPDIR/big"; wc -c < "$TMPDIR/big"'],
        RUN,
      )
      expect(Number(result.stdout.trim())).toBeLessThanOrEqual(1 << 20)
      expect(result.stderr).toMatch(/No space left on device/)
      expect(limitTargets(result)).toEqual(['tmpBytes'])
    },
    TIMEOUT,
  )

  it(
    'should apply the default limits to every command, and limits to a spawned process',
    async () => {
      const result = await sandboxFor().run(['sh', '-c', 'ulimit -f; ulimit -n; ulimit -t'], RUN)
      expect(result.stdout).toBe(`${1024 ** 3 / 512}\n4096\nunlimited\n`)
      // Soft and hard limits are alike: a command cannot raise them.
      const raise = await sandboxFor().run(
        [
          'sh',
          '-c',
          'ulimit -n 8192 2>/dev/null || echo refused; ulimit -f unlimited 2>/dev/null || echo refused; ulimit -n',
        ],
        RUN,
      )
      expect(raise.stdout).toBe('refused\nrefused\n4096\n')
      const child = createSandbox(policyFor(fixture.root), {
        hostHome: fixture.home,
        limits: { cpuSeconds: 7 },
      }).spawn(['sh', '-c', 'ulimit -t; ulimit -n'], { limits: { openFiles: 64 } })
      const out: Buffer[] = []
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk))
      child.stderr.resume()
      child.stdin.end()
      await new Promise((resolve) => child.on('close', resolve))
      expect(Buffer.concat(out).toString()).toBe('7\n64\n')
    },
    TIMEOUT,
  )

  it('should fail closed when prlimit is missing', async () => {
    const bin = await mkdtemp(join(fixture.base, 'bin-'))
    await symlink(programs().bwrap, join(bin, 'bwrap'))
    const path = process.env.PATH
    process.env.PATH = bin
    try {
      const check = checkSandbox()
      expect(check).toMatchObject({ available: false, issue: { code: 'sandbox_unavailable' } })
      if (check.available) return
      expect(check.issue.message).toContain('prlimit')
      expect(check.issue.hint).toContain('util-linux')
      const error = await sandboxFor()
        .run(['true'])
        .catch((caught: unknown) => caught)
      expect(SandboxError.isInstance(error)).toBe(true)
    } finally {
      process.env.PATH = path
    }
  })
})

/** Tasks (processes and threads) of this process's user on the host. */
function countOwnTasks(): number {
  const list = spawnSync('ps', ['-L', '-u', String(process.getuid?.()), '--no-headers'], {
    encoding: 'utf8',
  })
  return list.stdout.trim().split('\n').length
}

/** Runs the fork loop in the sandbox as `nobody` under a processes limit of 16. */
async function forkLoopAsNobody(found: {
  bwrap: string
  prlimit: string
}): Promise<{ stdout: string; stderr: string }> {
  // A workspace nobody can reach, and only system folders (not a toolchain under /root).
  const root = await mkdtemp('/tmp/plan-sandbox-nobody-')
  try {
    await chmod(root, 0o755)
    const sandbox = createSandbox(policyFor(root), { path: '/usr/bin:/bin' })
    const args = bubblewrapArgs(sandbox.config, { argv: FORK_LOOP, cwd: root })
    return runAsNobody([
      found.prlimit,
      ...prlimitOptions({ processes: 16 }),
      '--',
      found.bwrap,
      ...args,
    ])
  } finally {
    await rm(root, { recursive: true, force: true })
  }
}

function runAsNobody(argv: readonly string[]): { stdout: string; stderr: string } {
  const run = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', ...argv], {
    encoding: 'utf8',
    env: {},
    timeout: 30_000,
  })
  if (run.status !== 0) throw new Error(`setpriv: ${run.status} ${run.stderr}`)
  return { stdout: run.stdout, stderr: run.stderr }
}
