import { readFileSync } from 'node:fs'
import { chmod, mkdir, writeFile } from 'node:fs/promises'
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

function policyFor(root: string, extra: Partial<PolicyInput> = {}): PolicyInput {
  return { version: 1, workspace: { roots: [root] }, tools: {}, ...extra }
}

describeSandbox('createSandbox reads', () => {
  let fixture: SandboxFixture
  let tools: string

  beforeEach(async () => {
    fixture = await createSandboxFixture()
    // A toolchain in the home folder, on PATH, beside a file that is not a program.
    tools = join(fixture.home, '.tools')
    await mkdir(join(tools, 'bin'), { recursive: true })
    await writeFile(join(tools, 'bin', 'hello-tool'), '#!/bin/sh\necho tool-ran\n')
    await chmod(join(tools, 'bin', 'hello-tool'), 0o755)
    await writeFile(join(tools, 'notes.txt'), `${fixture.secret}-beside-bin\n`)
    await writeFile(join(fixture.home, '.pgpass'), `db:5432:*:me:${fixture.secret}-pgpass\n`)
  })

  afterEach(async () => {
    await fixture.cleanup()
  })

  const sandboxFor = (extra: Partial<PolicyInput> = {}) =>
    createSandbox(policyFor(fixture.root, extra), {
      hostHome: fixture.home,
      path: `/usr/bin:/bin:${join(tools, 'bin')}`,
    })

  it(
    'should show the bin folder of a PATH entry, never its parent, the home or a sibling project',
    async () => {
      const result = await sandboxFor().run([
        'sh',
        '-c',
        [
          'hello-tool',
          `cat ${tools}/notes.txt ${fixture.home}/.pgpass ${fixture.outside}/secret.txt`,
          `ls -A ${fixture.home} ${tools} ${fixture.outside}`,
        ].join('\n'),
      ])
      expect(result.stdout).toContain('tool-ran')
      expect(result.stdout).not.toContain(fixture.secret)
      expect(result.stderr).not.toContain(fixture.secret)
      expect(result.stderr).toContain(`${tools}/notes.txt: No such file or directory`)
      expect(result.stderr).toContain(`${fixture.outside}/secret.txt: No such file or directory`)
      // Folders above a bound one exist inside, empty but for the path to it.
      expect(result.stdout).not.toMatch(/\.pgpass|\.ssh|notes\.txt|secret\.txt/)
      const listing = await sandboxFor().run(['ls', '-A', '/', '/etc'])
      const names = listing.stdout.split('\n')
      for (const absent of ['home', 'root', 'opt', 'srv', 'var', 'gitconfig', 'npmrc', 'shadow'])
        expect([absent, names.includes(absent)]).toEqual([absent, false])
      expect(names).toContain('passwd')
    },
    TIMEOUT,
  )

  it(
    "should give the command a passwd and group of its own, not the host's",
    async () => {
      const result = await sandboxFor().run([
        'sh',
        '-c',
        'cat /etc/passwd; echo ---; cat /etc/group; echo ---; id -un; echo x > /etc/passwd',
      ])
      const [passwd = '', group = '', name = ''] = result.stdout.split('---\n')
      const host = readFileSync('/etc/passwd', 'utf8').split('\n')
      const names = (text: string) => text.split('\n').map((line) => line.split(':')[0])
      for (const line of host.filter((entry) => /^(daemon|bin|sys|www-data|postgres):/.test(entry)))
        expect(passwd).not.toContain(line)
      expect(names(passwd)).toEqual(
        process.getuid?.() === 0
          ? ['root', 'nobody', '']
          : ['root', expect.any(String), 'nobody', ''],
      )
      expect(names(group)).toContain('root')
      const own = passwd
        .split('\n')
        .find((line) => line.split(':')[2] === String(process.getuid?.()))
      expect(name.trim()).toBe(own?.split(':')[0])
      expect(result.stderr).toMatch(/Read-only file system/)
    },
    TIMEOUT,
  )

  it(
    'should show a folder the policy adds in sandbox.read, read-only',
    async () => {
      const sandbox = createSandbox(
        policyFor(fixture.root, { sandbox: { read: [fixture.outside] } }),
        { hostHome: fixture.home, path: '/usr/bin:/bin' },
      )
      const result = await sandbox.run([
        'sh',
        '-c',
        `cat ${fixture.outside}/secret.txt; echo x > ${fixture.outside}/planted`,
      ])
      expect(result.stdout).toBe(`${fixture.secret}-outside\n`)
      expect(result.stderr).toMatch(/Read-only file system/)
    },
    TIMEOUT,
  )

  it(
    'should mask the credential files of a home folder that is the workspace, and show the rest',
    async () => {
      const files = ['.pgpass', '.vault-token', '.claude/.credentials.json', '.codex/auth.json']
      for (const file of files) {
        await mkdir(join(fixture.home, file, '..'), { recursive: true })
        await writeFile(join(fixture.home, file), `${fixture.secret}-${file}\n`)
      }
      await writeFile(join(fixture.home, 'notes.md'), 'plain notes\n')
      const sandbox = createSandbox(policyFor(fixture.home), {
        hostHome: fixture.home,
        path: '/usr/bin:/bin',
      })
      const result = await sandbox.run(['sh', '-c', `cat notes.md ${files.join(' ')}`])
      expect(result.stdout).toBe('plain notes\n')
      expect(result.stderr).not.toContain(fixture.secret)
    },
    TIMEOUT,
  )
})
