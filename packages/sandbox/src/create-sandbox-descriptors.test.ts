import { type IOType, type StdioNull, type StdioPipe, spawn } from 'node:child_process'
import { openSync } from 'node:fs'
import { mkdir, symlink } from 'node:fs/promises'
import { connect, createServer, type Server, type Socket } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { PlanIssue } from '@plan/core'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { bubblewrapFeatures } from './bubblewrap-features.js'
import { checkSandbox, type SandboxRunResult } from './create-sandbox.js'
import { CLOSE_DESCRIPTORS, CLOSER_NAME } from './descriptor-closer.js'
import { findProgram } from './find-program.js'
import { DENIED_SYSCALLS, type SeccompArch } from './seccomp-filter.js'
import {
  createSandboxFixture,
  describeSandbox,
  type SandboxFixture,
} from './test-utils/sandbox-fixture.js'

const TIMEOUT = 60_000
const host = fileURLToPath(new URL('./__fixtures__/descriptor-host.ts', import.meta.url))

// After a gap: Node marks inherited descriptors 0 to 15, and an unbroken run after them,
// close-on-exec when it starts (libuv's uv_disable_stdio_inheritance).
const FILE_FD = 100
const SOCKET_FD = 101

/** Lists the descriptors the listing shell holds (the glob's own is closed by then). */
const LIST =
  'for f in /proc/self/fd/*; do if [[ -L $f && $f =~ [0-9]+$ ]]; then echo $BASH_REMATCH; fi; done'

interface HostReport {
  readonly inherited: readonly number[]
  readonly results: readonly (SandboxRunResult | { readonly issue: PlanIssue })[]
}

interface HostRequest {
  readonly commands: readonly (readonly string[])[]
  /** Where the host looks up bwrap, prlimit and bash. Default this process's PATH. */
  readonly hostPath?: string
}

/** A TCP connection whose far end records what arrives until the near end says it is done. */
async function connection(): Promise<{ socket: Socket; received: () => Promise<string> }> {
  let data = ''
  let ended: () => void = () => {}
  const done = new Promise<void>((resolve) => {
    ended = resolve
  })
  const server: Server = createServer((peer) => {
    peer.on('data', (chunk: Buffer) => {
      data += chunk.toString()
    })
    peer.on('end', () => {
      ended()
      server.close()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  const socket = connect(port, '127.0.0.1')
  await new Promise<void>((resolve) => socket.on('connect', resolve))
  return {
    socket,
    received: async () => {
      socket.end('END')
      await done
      return data
    },
  }
}

describeSandbox('createSandbox and the descriptors of the host process', () => {
  let fixture: SandboxFixture

  beforeEach(async () => {
    fixture = await createSandboxFixture()
  })

  afterEach(async () => {
    await fixture.cleanup()
  })

  /** Runs the host process with `extra` as its descriptors from FILE_FD on, or, if `clean`, with none. */
  async function runHost(
    request: HostRequest,
    extra: readonly (IOType | number | Socket)[],
    clean = false,
  ): Promise<HostReport> {
    const body = JSON.stringify({
      env: process.env,
      root: fixture.root,
      home: fixture.home,
      hostPath: request.hostPath ?? process.env.PATH ?? '',
      path: process.env.PATH ?? '',
      commands: request.commands,
    })
    const stdio: (StdioNull | StdioPipe | number | Socket)[] = ['ignore', 'pipe', 'pipe']
    while (stdio.length < FILE_FD) stdio.push('ignore')
    stdio.push(...(extra as (StdioNull | StdioPipe | number | Socket)[]))
    const bash = findProgram('bash', process.env.PATH ?? '') as string
    const argv = clean
      ? [bash, '--norc', '--noprofile', '-c', CLOSE_DESCRIPTORS, CLOSER_NAME, '3', process.execPath]
      : [process.execPath]
    const child = spawn(argv[0] as string, [...argv.slice(1), host, body], {
      stdio: clean ? ['ignore', 'pipe', 'pipe'] : stdio,
    })
    let stdout = ''
    let stderr = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    if (code !== 0) throw new Error(`the host process ended with ${code}: ${stderr}`)
    return JSON.parse(stdout) as HostReport
  }

  /** A folder holding only links to bubblewrap and prlimit: a PATH without bash. */
  async function pathWithoutBash(): Promise<string> {
    const check = checkSandbox()
    if (!check.available) throw new Error(check.issue.message)
    const bin = join(fixture.base, 'bin')
    await mkdir(bin)
    await symlink(check.bwrap, join(bin, 'bwrap'))
    await symlink(check.prlimit, join(bin, 'prlimit'))
    return bin
  }

  it(
    'should keep a file and a socket the host inherited out of a sandboxed command',
    async () => {
      const file = openSync(join(fixture.outside, 'secret.txt'), 'r')
      const { socket, received } = await connection()
      const report = await runHost(
        {
          commands: [
            ['bash', '-c', `${LIST}; cat <&${FILE_FD}; echo LEAK >&${SOCKET_FD}`],
            ['bash', '-c', `ls -l /proc/self/fd/${FILE_FD} /proc/self/fd/${SOCKET_FD}`],
          ],
        },
        [file, socket],
      )
      expect(report.inherited).toEqual(expect.arrayContaining([FILE_FD, SOCKET_FD]))
      const [listed, linked] = report.results as SandboxRunResult[]
      expect(listed?.stdout).toBe('0\n1\n2\n')
      expect(listed?.stderr).toContain('Bad file descriptor')
      expect(linked?.exitCode).not.toBe(0)
      for (const result of report.results)
        expect(JSON.stringify(result)).not.toContain(fixture.secret)
      expect(await received()).toBe('END')
    },
    TIMEOUT,
  )

  it(
    "should keep the seccomp filter and bubblewrap's status when it closes them",
    async () => {
      const arch = process.arch as SeccompArch
      const ptrace = `print syscall(${DENIED_SYSCALLS.ptrace?.[arch]}, 0, 0, 0, 0) < 0 ? 0 + $! : "ok"`
      const report = await runHost(
        {
          commands: [
            ['perl', '-e', ptrace],
            ['sh', '-c', 'echo "bwrap: fake" >&2; exit 1'],
          ],
        },
        [openSync(join(fixture.outside, 'secret.txt'), 'r')],
      )
      expect(report.inherited).toContain(FILE_FD)
      const [seccomp, status] = report.results
      expect(seccomp).toMatchObject({ exitCode: 0, stdout: '1' })
      const check = checkSandbox()
      if (check.available && bubblewrapFeatures(check.bwrap).jsonStatus)
        expect(status).toMatchObject({ exitCode: 1, stderr: 'bwrap: fake\n' })
      else expect(status).toMatchObject({ issue: { code: 'sandbox_failed' } })
    },
    TIMEOUT,
  )

  it(
    'should fail closed, naming the descriptors, when they must be closed and there is no bash',
    async () => {
      const report = await runHost({ commands: [['true']], hostPath: await pathWithoutBash() }, [
        openSync(join(fixture.outside, 'secret.txt'), 'r'),
      ])
      expect(report.results).toEqual([
        {
          issue: expect.objectContaining({
            code: 'sandbox_unavailable',
            message: expect.stringContaining(String(FILE_FD)),
            hint: expect.stringContaining('Install bash'),
          }),
        },
      ])
    },
    TIMEOUT,
  )

  it(
    'should start a command alike whether or not the host holds descriptors to close',
    async () => {
      const commands = [
        ['env'],
        ['sh', '-c', 'pwd; ulimit -a; echo $$; exit 3'],
        ['bash', '-c', LIST],
        ['sh', '-c', 'echo "bwrap: fake" >&2; exit 1'],
        ['plan-no-such-program'],
      ]
      const clean = await runHost({ commands }, [], true)
      const file = openSync(join(fixture.outside, 'secret.txt'), 'r')
      const closed = await runHost({ commands }, [file])
      expect(clean.inherited).toEqual([])
      expect(closed.inherited).toContain(FILE_FD)
      expect(closed.results).toEqual(clean.results)
      expect(clean.results[0]).toMatchObject({ exitCode: 0 })
      expect(clean.results[1]).toMatchObject({ exitCode: 3 })
    },
    TIMEOUT,
  )

  it(
    'should run commands without bash when the host holds no descriptor to close',
    async () => {
      const report = await runHost(
        { commands: [['bash', '-c', LIST]], hostPath: await pathWithoutBash() },
        [],
        true,
      )
      expect(report.inherited).toEqual([])
      expect(report.results).toEqual([
        expect.objectContaining({ exitCode: 0, stdout: '0\n1\n2\n' }),
      ])
    },
    TIMEOUT,
  )
})
