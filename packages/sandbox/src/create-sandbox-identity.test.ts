import { execFileSync } from 'node:child_process'
import { existsSync, lstatSync, readlinkSync } from 'node:fs'
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { PolicyInput } from '@plan/core'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { createSandbox, type SandboxRunResult } from './create-sandbox.js'
import {
  createSandboxFixture,
  describeSandbox,
  gitIdentity,
  initRepository,
  type SandboxFixture,
} from './test-utils/sandbox-fixture.js'

const TIMEOUT = 60_000

function policyFor(root: string, workspace: Partial<PolicyInput['workspace']> = {}): PolicyInput {
  return { version: 1, workspace: { roots: [root], deny: ['.env'], ...workspace }, tools: {} }
}

/** git as the user would run it on the host, outside any sandbox. */
function hostGit(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: { ...gitIdentity(), PATH: process.env.PATH ?? '', HOME: cwd },
    encoding: 'utf8',
  })
}

function writeTargets(result: SandboxRunResult): (string | undefined)[] {
  return result.violations
    .filter((violation) => violation.kind === 'write')
    .map((violation) => violation.target)
}

describeSandbox('createSandbox protected paths', () => {
  let fixture: SandboxFixture
  let marker: string

  beforeEach(async () => {
    fixture = await createSandboxFixture()
    marker = join(fixture.outside, 'hook-ran')
  })

  afterEach(async () => {
    await fixture.cleanup()
  })

  const sandboxFor = (workspace: Partial<PolicyInput['workspace']> = {}) =>
    createSandbox(policyFor(fixture.root, workspace), {
      hostHome: fixture.home,
      path: '/usr/bin:/bin',
    })

  const hostile = (name: string) =>
    `[core]\\n\\tfsmonitor = "touch ${marker}-${name}; false"\\n\\thooksPath = hooks\\n`

  it(
    'should keep .git in place: no rename, rebuild or removal of it or its code parts',
    async () => {
      initRepository(fixture.root)
      const config = await readFile(join(fixture.root, '.git', 'config'), 'utf8')
      const result = await sandboxFor({ readOnly: ['.git/config', '.git/hooks'] }).run([
        'sh',
        '-c',
        [
          'mv .git .git-old',
          `mkdir -p .git/hooks; printf "${hostile('renamed')}" > .git/config`,
          'mv .git/hooks .git/hooks-old; mv .git/config .git/config-old',
          'rm -rf .git/hooks .git/config',
          `printf "#!/bin/sh\\ntouch ${marker}-pre-commit\\n" > .git/hooks/pre-commit`,
          `printf "${hostile('appended')}" >> .git/config`,
          'echo /tmp/evil-objects > .git/objects/info/alternates',
          'mkdir -p .git/rebase-merge',
          `printf "pick 1234567 first\\nexec touch ${marker}-rebase\\n  x touch ${marker}-x\\n# exec in a comment\\n" > .git/rebase-merge/git-rebase-todo`,
          'echo DONE',
        ].join('\n'),
      ])
      expect(result.stdout).toContain('DONE')
      expect(result.stderr).toMatch(/Device or resource busy|Read-only file system/)
      expect(await readFile(join(fixture.root, '.git', 'config'), 'utf8')).toBe(config)
      expect(existsSync(join(fixture.root, '.git-old'))).toBe(false)
      expect(existsSync(join(fixture.root, '.git', 'hooks', 'pre-commit'))).toBe(false)
      expect(existsSync(join(fixture.root, '.git', 'objects', 'info', 'alternates'))).toBe(false)
      expect(
        await readFile(join(fixture.root, '.git', 'rebase-merge', 'git-rebase-todo'), 'utf8'),
      ).toBe('pick 1234567 first\n# exec in a comment\n')
      // A missing code part has a stand-in: the write is refused, so nothing is left to remove.
      expect(result.stderr).toMatch(/alternates: Read-only file system/)
      hostGit(fixture.root, 'status', '--short')
      hostGit(fixture.root, 'commit', '--allow-empty', '-q', '-m', 'host')
      expect(existsSync(`${marker}-renamed`)).toBe(false)
      expect(existsSync(`${marker}-appended`)).toBe(false)
      expect(existsSync(`${marker}-pre-commit`)).toBe(false)
    },
    TIMEOUT,
  )

  it(
    'should keep a deny file hidden when its parent folder is renamed or removed',
    async () => {
      await mkdir(join(fixture.root, 'keys', 'prod'), { recursive: true })
      await writeFile(join(fixture.root, 'keys', 'prod', 'token'), `${fixture.secret}-token\n`)
      const sandbox = sandboxFor({ deny: ['.env', 'keys/prod/token'] })
      const rename = await sandbox.run([
        'sh',
        '-c',
        'mv keys moved; mv keys/prod keys/p2; mv keys/prod/token keys/t; rm -rf keys; cat moved/prod/token keys/p2/token keys/t keys/prod/token',
      ])
      expect(rename.stdout).not.toContain(fixture.secret)
      expect(rename.stderr).toMatch(/Device or resource busy/)
      const next = await sandbox.run(['sh', '-c', 'cat keys/prod/token; ls -R'])
      expect(next.stdout).not.toContain(fixture.secret)
      expect(await readFile(join(fixture.root, 'keys', 'prod', 'token'), 'utf8')).toContain(
        fixture.secret,
      )
    },
    TIMEOUT,
  )

  it(
    'should put back a readOnly link the command swapped, and keep its target read-only',
    async () => {
      await mkdir(join(fixture.root, 'settings'))
      await writeFile(join(fixture.root, 'settings', 'app.json'), '{"safe":true}\n')
      await symlink('settings', join(fixture.root, 'conf'))
      await symlink('settings/app.json', join(fixture.root, 'app.json'))
      const sandbox = sandboxFor({ readOnly: ['conf', 'app.json'] })
      const result = await sandbox.run([
        'sh',
        '-c',
        [
          'echo evil > conf/app.json',
          'rm conf && mkdir conf && echo evil > conf/app.json',
          'rm app.json && echo evil > app.json',
          'echo DONE',
        ].join('\n'),
      ])
      expect(result.stdout).toContain('DONE')
      expect(lstatSync(join(fixture.root, 'conf')).isSymbolicLink()).toBe(true)
      expect(readlinkSync(join(fixture.root, 'conf'))).toBe('settings')
      expect(readlinkSync(join(fixture.root, 'app.json'))).toBe('settings/app.json')
      expect(await readFile(join(fixture.root, 'settings', 'app.json'), 'utf8')).toBe(
        '{"safe":true}\n',
      )
      expect(writeTargets(result)).toEqual(
        expect.arrayContaining([join(fixture.root, 'conf'), join(fixture.root, 'app.json')]),
      )
    },
    TIMEOUT,
  )

  it(
    'should keep a nested repository read-only and remove one a command creates, bare or not',
    async () => {
      initRepository(fixture.root)
      await mkdir(join(fixture.root, 'vendor', 'lib'), { recursive: true })
      hostGit(join(fixture.root, 'vendor', 'lib'), 'init', '-q')
      const nestedConfig = join(fixture.root, 'vendor', 'lib', '.git', 'config')
      const before = await readFile(nestedConfig, 'utf8')
      const result = await sandboxFor().run([
        'sh',
        '-c',
        [
          `printf "${hostile('nested')}" >> vendor/lib/.git/config`,
          'mv vendor/lib/.git vendor/lib/.git-old',
          'mkdir -p planted/info && echo /tmp/evil-objects > planted/info/alternates',
          'mv vendor/lib/.git/objects vendor/lib/.git/objects-old && ln -s ../../../planted vendor/lib/.git/objects',
          `git init -q sub && printf "${hostile('new')}" > sub/.git/config`,
          'mkdir -p sub/.git/hooks && printf "#!/bin/sh\\ntouch ' +
            marker +
            '-hook\\n" > sub/.git/hooks/post-checkout',
          `git init -q --bare bare.git && printf "${hostile('bare')}" > bare.git/config`,
          'mkdir redirect && echo "gitdir: ../bare.git" > redirect/.git',
          'cat .env; git -C sub status --short; echo DONE',
        ].join('\n'),
      ])
      expect(result.stdout).toContain('DONE')
      expect(result.stdout).not.toContain(fixture.secret)
      expect(await readFile(nestedConfig, 'utf8')).toBe(before)
      expect(writeTargets(result)).toEqual(
        expect.arrayContaining([
          join(fixture.root, 'sub', '.git', 'config'),
          join(fixture.root, 'sub', '.git', 'hooks'),
          join(fixture.root, 'bare.git', 'config'),
          join(fixture.root, 'redirect', '.git'),
        ]),
      )
      for (const path of ['sub/.git/config', 'sub/.git/hooks', 'bare.git/config', 'redirect/.git'])
        expect([path, existsSync(join(fixture.root, path))]).toEqual([path, false])
      // The stand-in of its missing alternates pins objects/ in place: no link to planted/.
      expect(lstatSync(join(fixture.root, 'vendor/lib/.git/objects')).isDirectory()).toBe(true)
      // The user's next ordinary git, on the host, in each of them.
      for (const folder of ['sub', 'vendor/lib', 'redirect'])
        try {
          hostGit(join(fixture.root, folder), 'status', '--short')
        } catch {
          // A repository without its redirect is no repository: nothing to run.
        }
      expect(hostGit(join(fixture.root, 'bare.git'), 'rev-parse', '--is-bare-repository')).toBe(
        'true\n',
      )
      for (const name of ['nested', 'new', 'bare', 'hook'])
        expect([name, existsSync(`${marker}-${name}`)]).toEqual([name, false])
      expect(result.stderr).not.toContain(fixture.secret)
    },
    TIMEOUT,
  )

  it(
    'should let default git work write .git: status, add, commit, checkout -b, stash, tag',
    async () => {
      initRepository(fixture.root)
      const config = await readFile(join(fixture.root, '.git', 'config'), 'utf8')
      const sandbox = sandboxFor()
      const steps = [
        ['git', 'status', '--short'],
        ['sh', '-c', 'echo more >> a.txt && echo new > b.txt'],
        ['git', 'add', 'a.txt', 'b.txt'],
        ['git', 'commit', '-q', '-m', 'second'],
        ['git', 'checkout', '-q', '-b', 'feature'],
        ['sh', '-c', 'echo wip >> a.txt'],
        ['git', 'stash', '-q'],
        ['git', 'tag', 'v1'],
        ['git', 'stash', 'pop', '-q'],
      ]
      for (const argv of steps) {
        const result = await sandbox.run(argv, { env: gitIdentity() })
        expect([argv.join(' '), result.exitCode, result.stderr]).toEqual([argv.join(' '), 0, ''])
        expect([argv.join(' '), result.violations]).toEqual([argv.join(' '), []])
      }
      expect(hostGit(fixture.root, 'log', '--format=%s', 'v1')).toBe('second\nfirst\n')
      expect(hostGit(fixture.root, 'branch', '--show-current')).toBe('feature\n')
      expect(hostGit(fixture.root, 'status', '--short')).toBe(' M a.txt\n?? .env\n')
      expect(await readFile(join(fixture.root, '.git', 'config'), 'utf8')).toBe(config)
    },
    TIMEOUT,
  )

  it(
    'should protect by identity under a workspace root given through a link',
    async () => {
      await mkdir(join(fixture.root, 'keys', 'prod'), { recursive: true })
      await writeFile(join(fixture.root, 'keys', 'prod', 'token'), `${fixture.secret}-token\n`)
      await writeFile(join(fixture.root, 'settings.json'), '{"safe":true}\n')
      await symlink('settings.json', join(fixture.root, 'conf.json'))
      const linked = join(fixture.base, 'ws-link')
      await symlink(fixture.root, linked)
      const sandbox = createSandbox(
        {
          version: 1,
          workspace: { roots: [linked], readOnly: ['conf.json'], deny: ['keys/prod/token'] },
          tools: {},
        },
        { hostHome: fixture.home, path: '/usr/bin:/bin' },
      )
      const result = await sandbox.run([
        'sh',
        '-c',
        'mv keys moved; rm conf.json; echo evil > conf.json; cat moved/prod/token keys/prod/token',
      ])
      expect(result.stdout).not.toContain(fixture.secret)
      expect(readlinkSync(join(fixture.root, 'conf.json'))).toBe('settings.json')
      expect(existsSync(join(fixture.root, 'keys', 'prod', 'token'))).toBe(true)
      expect(await readFile(join(fixture.root, 'settings.json'), 'utf8')).toBe('{"safe":true}\n')
    },
    TIMEOUT,
  )
})

describeSandbox('createSandbox links to protected paths', () => {
  let fixture: SandboxFixture

  beforeEach(async () => {
    fixture = await createSandboxFixture()
  })

  afterEach(async () => {
    await fixture.cleanup()
  })

  it(
    'should mask a denied file and keep a read-only one unwritten through links made before or during the run',
    async () => {
      await mkdir(join(fixture.root, 'vendor'))
      await writeFile(join(fixture.root, 'vendor', 'lib.js'), 'export {}\n')
      await symlink('.env', join(fixture.root, 'notes.txt'))
      await symlink('.', join(fixture.root, 'alias'))
      await symlink('vendor/lib.js', join(fixture.root, 'lib-link'))
      const sandbox = createSandbox(policyFor(fixture.root, { readOnly: ['vendor'] }), {
        hostHome: fixture.home,
        path: '/usr/bin:/bin',
      })
      const result = await sandbox.run([
        'sh',
        '-c',
        [
          'cat notes.txt alias/.env',
          'ln -s .env made.txt; cat made.txt',
          'ln .env hard.txt; cat hard.txt',
          'cp notes.txt copy.txt; cat copy.txt',
          'grep -r S3CRET alias/',
          'echo evil > lib-link',
          'cp a.txt lib-link',
          'echo DONE',
        ].join('\n'),
      ])
      expect(result.stdout).toContain('DONE')
      expect(result.stdout).not.toContain(fixture.secret)
      expect(result.stderr).not.toContain(fixture.secret)
      expect(existsSync(join(fixture.root, 'hard.txt'))).toBe(false)
      expect(await readFile(join(fixture.root, 'vendor', 'lib.js'), 'utf8')).toBe('export {}\n')
      expect(readlinkSync(join(fixture.root, 'lib-link'))).toBe('vendor/lib.js')
      const kinds = result.violations.map((violation) => violation.kind)
      expect(kinds.filter((kind) => kind === 'read')).toHaveLength(5)
      expect(kinds.filter((kind) => kind === 'write')).toHaveLength(2)
    },
    TIMEOUT,
  )
})
