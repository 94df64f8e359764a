import { chmod, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { PolicyInput } from '@plan/core'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { checkSandbox, createSandbox } from './create-sandbox.js'
import { SandboxError } from './sandbox-error.js'
import {
  createSandboxFixture,
  describeSandbox,
  type SandboxFixture,
} from './test-utils/sandbox-fixture.js'

const TIMEOUT = 60_000

function policyFor(root: string): PolicyInput {
  return { version: 1, workspace: { roots: [root] }, tools: {} }
}

/** The bubblewrap the sandbox finds on this machine. */
function realBwrap(): string {
  const check = checkSandbox()
  if (!check.available) throw new Error(check.issue.message)
  return check.bwrap
}

describeSandbox('createSandbox and what bubblewrap reports', () => {
  let fixture: SandboxFixture

  beforeEach(async () => {
    fixture = await createSandboxFixture()
  })

  afterEach(async () => {
    await fixture.cleanup()
  })

  /** A bubblewrap that answers `--help` with `help` and runs the real one with `prefix` first. */
  async function wrappedBwrap(name: string, help: string, prefix: string): Promise<string> {
    const path = join(fixture.base, name)
    const bwrap = realBwrap()
    await writeFile(
      path,
      `#!/bin/sh\nif [ "$1" = --help ]; then ${help}; exit; fi\nexec ${bwrap} ${prefix} "$@"\n`,
    )
    await chmod(path, 0o755)
    return path
  }

  const failing = (run: Promise<unknown>) =>
    run.then(
      () => undefined,
      (error: unknown) => error,
    )

  it(
    "should return a command's own bwrap:, prlimit: or plan-sandbox: message and exit code as its result",
    async () => {
      const sandbox = createSandbox(policyFor(fixture.root), { hostHome: fixture.home })
      for (const program of ['bwrap', 'prlimit']) {
        const result = await sandbox.run(['sh', '-c', `echo "${program}: fake" >&2; exit 1`])
        expect(result).toMatchObject({ exitCode: 1, stderr: `${program}: fake\n` })
      }
      const closer = await sandbox.run(['sh', '-c', 'echo "plan-sandbox: fake" >&2; exit 125'])
      expect(closer).toMatchObject({ exitCode: 125, stderr: 'plan-sandbox: fake\n' })
    },
    TIMEOUT,
  )

  it(
    'should still fail when bubblewrap cannot set up the sandbox after starting its child',
    async () => {
      const bwrap = await wrappedBwrap(
        'bwrap-bad-mount',
        `${realBwrap()} --help`,
        '--ro-bind /plan-no-such-source /plan-mount',
      )
      const sandbox = createSandbox(policyFor(fixture.root), { hostHome: fixture.home, bwrap })
      const error = await failing(sandbox.run(['true']))
      expect(SandboxError.isInstance(error)).toBe(true)
      expect((error as SandboxError).issues[0]).toMatchObject({ code: 'sandbox_failed' })
      expect((error as SandboxError).message).toContain('plan-no-such-source')
    },
    TIMEOUT,
  )

  it(
    'should keep a program that is not found as the result',
    async () => {
      const sandbox = createSandbox(policyFor(fixture.root), { hostHome: fixture.home })
      const result = await sandbox.run(['plan-no-such-program'])
      expect(result.exitCode).toBe(1)
      expect(result.stderr).toMatch(/^bwrap: execvp plan-no-such-program/)
    },
    TIMEOUT,
  )

  it(
    'should fail closed on a bwrap: message from a bubblewrap without --json-status-fd',
    async () => {
      const bwrap = await wrappedBwrap(
        'bwrap-no-status',
        `${realBwrap()} --help | grep -v -- --json-status-fd`,
        '',
      )
      const sandbox = createSandbox(policyFor(fixture.root), { hostHome: fixture.home, bwrap })
      expect(await sandbox.run(['sh', '-c', 'echo fine'])).toMatchObject({ exitCode: 0 })
      const error = await failing(sandbox.run(['sh', '-c', 'echo "bwrap: fake" >&2; exit 1']))
      expect((error as SandboxError).issues[0]).toMatchObject({ code: 'sandbox_failed' })
    },
    TIMEOUT,
  )

  it(
    'should close a spawned process as before, its exit code its own',
    async () => {
      const sandbox = createSandbox(policyFor(fixture.root), { hostHome: fixture.home })
      const child = sandbox.spawn(['sh', '-c', 'echo "bwrap: fake" >&2; ls /proc/self/fd; exit 1'])
      const out: Buffer[] = []
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk))
      child.stderr.resume()
      expect(await new Promise((resolve) => child.on('close', resolve))).toBe(1)
      expect(Buffer.concat(out).toString().trim().split('\n')).not.toContain('4')
    },
    TIMEOUT,
  )
})
