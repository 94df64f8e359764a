import { type ChildProcessWithoutNullStreams, execFileSync, spawnSync } from 'node:child_process'
import { cpSync, existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs'
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
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
const NOBODY = 65534
const PACKAGE = fileURLToPath(new URL('..', import.meta.url))

/**
 * A copy, inside `own`, of this package's sources (with the host fixture) and of every package
 * they import, found through the node_modules links of the package that imports it: another user
 * may not be able to read the checkout, which can lie below a private home. Returns the path of
 * the host script in the copy.
 */
function copyPackageFor(own: string): string {
  const target = join(own, 'sandbox')
  const skip = (source: string) => !source.endsWith('.test.ts') && !source.includes('/node_modules')
  cpSync(join(PACKAGE, 'src'), join(target, 'src'), { recursive: true, filter: skip })
  cpSync(join(PACKAGE, 'package.json'), join(target, 'package.json'))
  const copied = new Set<string>()
  const queue: [name: string, from: string][] = [
    ['@plan/core', PACKAGE],
    ['@plan/tools', PACKAGE],
    ['zod', PACKAGE],
  ]
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const [name, from] = next
    if (copied.has(name)) continue
    copied.add(name)
    const folder = realpathSync(join(from, 'node_modules', name))
    cpSync(folder, join(target, 'node_modules', name), {
      recursive: true,
      filter: (source) => !source.slice(folder.length).includes('/node_modules'),
    })
    const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>
    }
    for (const dependency of Object.keys(manifest.dependencies ?? {}))
      queue.push([dependency, folder])
  }
  return join(target, 'src', '__fixtures__', 'stand-in-host.ts')
}

const MAKEFILE = 'all:\n\t@echo made-by-the-real-makefile\n\techo built > out.txt\n'
const EVIL = 'all:\n\t@echo made-by-the-agent\n'

function host(cwd: string, program: string, ...args: string[]): string {
  return execFileSync(program, args, {
    cwd,
    env: { ...gitIdentity(), PATH: process.env.PATH ?? '', HOME: cwd },
    encoding: 'utf8',
  })
}

/** The names in `root` (relative paths) among `names` that exist on the disk. */
function existing(root: string, names: readonly string[]): string[] {
  return names.filter((name) => existsSync(join(root, name)))
}

/** Resolves with all of stdout once the process closed; `ready` once `marker` was printed. */
function watch(
  child: ChildProcessWithoutNullStreams,
  marker: string,
): { ready: Promise<void>; closed: Promise<string> } {
  let stdout = ''
  let seen: () => void = () => {}
  const ready = new Promise<void>((resolve) => {
    seen = resolve
  })
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
    if (stdout.includes(marker)) seen()
  })
  const closed = new Promise<string>((resolve) => child.on('close', () => resolve(stdout)))
  return { ready, closed }
}

describeSandbox('createSandbox missing protected paths', () => {
  let fixture: SandboxFixture

  beforeEach(async () => {
    fixture = await createSandboxFixture()
    await writeFile(join(fixture.root, 'Makefile'), MAKEFILE)
    await writeFile(join(fixture.root, 'evil.mk'), EVIL)
  })

  afterEach(async () => {
    await fixture.cleanup()
  })

  const sandboxFor = (workspace: Partial<PolicyInput['workspace']> = {}) =>
    createSandbox(
      { version: 1, workspace: { roots: [fixture.root], ...workspace }, tools: {} },
      { hostHome: fixture.home, path: '/usr/bin:/bin' },
    )

  const run = (
    workspace: Partial<PolicyInput['workspace']>,
    lines: readonly string[],
  ): Promise<SandboxRunResult> =>
    sandboxFor(workspace).run(['sh', '-c', [...lines, 'echo DONE'].join('\n')], {
      env: gitIdentity(),
    })

  it(
    'should refuse creating a missing build-file stand-in, and leave no such name on the disk',
    async () => {
      const result = await run({ readOnly: ['Makefile'] }, [
        'cp evil.mk GNUmakefile && echo WROTE cp',
        'mv evil.mk makefile && echo WROTE mv',
        'ln evil.mk GNUmakefile && echo WROTE ln',
        'ln -sf evil.mk GNUmakefile && echo WROTE ln -s',
        'rm -f GNUmakefile makefile && echo WROTE rm',
        'mkdir GNUmakefile && echo WROTE mkdir',
        'make',
      ])
      expect(result.stdout).toContain('DONE')
      expect(result.stdout).not.toContain('WROTE')
      expect(result.stdout).toContain('made-by-the-real-makefile')
      expect(result.stdout).not.toContain('made-by-the-agent')
      expect(existing(fixture.root, ['GNUmakefile', 'makefile'])).toEqual([])
      expect(await readFile(join(fixture.root, 'out.txt'), 'utf8')).toBe('built\n')
      expect(host(fixture.root, 'make')).toContain('made-by-the-real-makefile')
      expect(result.violations.map((violation) => violation.kind)).toContain('write')
    },
    TIMEOUT,
  )

  it(
    'should refuse creating a missing folder of .git and the code parts of a nested repository',
    async () => {
      initRepository(fixture.root)
      await rm(join(fixture.root, '.git', 'hooks'), { recursive: true, force: true })
      await mkdir(join(fixture.root, 'vendor', 'lib'), { recursive: true })
      host(join(fixture.root, 'vendor', 'lib'), 'git', 'init', '-q')
      await rm(join(fixture.root, 'vendor', 'lib', '.git', 'hooks'), { recursive: true })
      const marker = join(fixture.outside, 'hook-ran')
      const hook = `#!/bin/sh\\ntouch ${marker}\\n`
      const result = await run({}, [
        `mkdir -p .git/hooks && printf "${hook}" > .git/hooks/pre-commit && echo WROTE hooks`,
        `mkdir planted && printf "${hook}" > planted/pre-commit && chmod +x planted/pre-commit`,
        'mv planted .git/hooks && echo WROTE mv',
        'ln -s ../planted .git/hooks && echo WROTE ln',
        'echo /tmp > .git/commondir && echo WROTE commondir',
        'mkdir -p .git/worktrees/x && echo WROTE worktrees',
        `mkdir -p vendor/lib/.git/hooks && printf "${hook}" > vendor/lib/.git/hooks/post-checkout && echo WROTE nested`,
        'mv planted vendor/lib/.git/hooks && echo WROTE nested mv',
        'echo ../../.. > vendor/lib/.git/commondir && echo WROTE nested commondir',
        'git commit -q --allow-empty -m inside && git -C vendor/lib status --short && echo COMMITTED',
      ])
      expect(result.stdout).toContain('COMMITTED')
      expect(result.stdout).not.toContain('WROTE')
      const names = [
        '.git/hooks',
        '.git/commondir',
        '.git/worktrees',
        '.git/modules',
        '.git/config.worktree',
        'vendor/lib/.git/hooks',
        'vendor/lib/.git/commondir',
        'vendor/lib/.git/worktrees',
      ]
      expect(existing(fixture.root, names)).toEqual([])
      host(fixture.root, 'git', 'commit', '-q', '--allow-empty', '-m', 'on the host')
      host(join(fixture.root, 'vendor', 'lib'), 'git', 'status', '--short')
      expect(existsSync(marker)).toBe(false)
      expect(host(fixture.root, 'git', 'log', '--format=%s')).toBe('on the host\ninside\nfirst\n')
    },
    TIMEOUT,
  )

  it(
    'should refuse creating a nested protected path whose folders are missing, and a denied name',
    async () => {
      await writeFile(join(fixture.root, 'Cargo.toml'), '[package]\nname = "x"\n')
      await mkdir(join(fixture.root, 'vendor', 'pkg'), { recursive: true })
      const result = await run(
        {
          readOnly: ['tools/build/Makefile', 'Cargo.toml', 'vendor/pkg/.git/config'],
          deny: ['secrets.txt'],
        },
        [
          'git init -q vendor/pkg && echo WROTE git init',
          'mkdir -p vendor/pkg/.git/hooks && echo WROTE nested git',
          'mkdir -p tools/build && cp evil.mk tools/build/Makefile && echo WROTE nested',
          'mkdir elsewhere && cp evil.mk elsewhere/Makefile && mv elsewhere tools && echo WROTE mv',
          'mkdir -p .cargo && echo "[build]" > .cargo/config.toml && echo WROTE cargo',
          'echo stolen > secrets.txt && echo WROTE deny',
          'ln -s /etc/hostname secrets.txt && echo WROTE deny link',
        ],
      )
      expect(result.stdout).toContain('DONE')
      expect(result.stdout).not.toContain('WROTE')
      expect(existing(fixture.root, ['tools', '.cargo', 'secrets.txt', 'vendor/pkg/.git'])).toEqual(
        [],
      )
      expect(existing(fixture.root, ['elsewhere/Makefile'])).toEqual(['elsewhere/Makefile'])
    },
    TIMEOUT,
  )

  it(
    'should leave no stand-in for a missing credential store, and remove one a command creates',
    async () => {
      const sandbox = createSandbox(
        { version: 1, workspace: { roots: [fixture.root] }, tools: {} },
        { hostHome: fixture.root, path: '/usr/bin:/bin' },
      )
      const result = await sandbox.run([
        'sh',
        '-c',
        'ls -A; mkdir .ssh && echo ssh-ed25519 AAAA > .ssh/authorized_keys && echo CREATED',
      ])
      // .git stands in for the missing repository whose code parts readOnly names by default.
      expect(result.stdout).toBe('.env\n.git\nMakefile\na.txt\nevil.mk\nCREATED\n')
      expect(existing(fixture.root, ['.ssh'])).toEqual([])
      expect(result.violations).toContainEqual(
        expect.objectContaining({ kind: 'write', target: join(fixture.root, '.ssh') }),
      )
    },
    TIMEOUT,
  )

  it(
    'should let everyday work go on: new files, build outputs, make, git init in a new folder',
    async () => {
      initRepository(fixture.root)
      const result = await run({ readOnly: ['Makefile', '.git/config', '.git/hooks'] }, [
        'echo notes > notes.txt',
        'mkdir -p build/obj && echo object > build/obj/a.o',
        'make',
        'git init -q newproject && git -C newproject status --short',
        'git add notes.txt && git commit -q -m notes',
      ])
      expect(result.stdout).toContain('DONE')
      expect(result.stdout).toContain('made-by-the-real-makefile')
      expect(result.stderr).toBe('')
      expect(await readFile(join(fixture.root, 'notes.txt'), 'utf8')).toBe('notes\n')
      expect(await readFile(join(fixture.root, 'build/obj/a.o'), 'utf8')).toBe('object\n')
      expect(await readFile(join(fixture.root, 'out.txt'), 'utf8')).toBe('built\n')
      expect(existsSync(join(fixture.root, 'newproject', '.git', 'HEAD'))).toBe(true)
      expect(host(fixture.root, 'git', 'log', '--format=%s')).toBe('notes\nfirst\n')
      expect(readdirSync(fixture.root).sort()).toEqual([
        '.env',
        '.git',
        'Makefile',
        'a.txt',
        'build',
        'evil.mk',
        'newproject',
        'notes.txt',
        'out.txt',
      ])
    },
    TIMEOUT,
  )

  it(
    'should keep the stand-ins a running command holds when another command ends',
    async () => {
      const sandbox = sandboxFor({ readOnly: ['Makefile'] })
      const running = sandbox.spawn(
        ['sh', '-c', 'echo READY; read line; cp evil.mk GNUmakefile && echo WROTE; echo END'],
        { cwd: fixture.root },
      )
      const watched = watch(running, 'READY')
      await watched.ready
      const other = await sandbox.run(['sh', '-c', 'cp evil.mk makefile || echo REFUSED'])
      expect(other.stdout).toBe('REFUSED\n')
      expect(readFileSync(join(fixture.root, 'GNUmakefile'), 'utf8')).toBe('-include Makefile\n')
      running.stdin.end('go\n')
      const stdout = await watched.closed
      expect(stdout).toContain('END')
      expect(stdout).not.toContain('WROTE')
      expect(existing(fixture.root, ['GNUmakefile', 'makefile'])).toEqual([])
    },
    TIMEOUT,
  )

  it(
    'should remove the stand-ins of a command that is killed or runs out of time',
    async () => {
      const sandbox = sandboxFor({ readOnly: ['Makefile'] })
      const running = sandbox.spawn(['sh', '-c', 'echo READY; exec sleep 600'], {
        cwd: fixture.root,
      })
      const watched = watch(running, 'READY')
      await watched.ready
      expect(existing(fixture.root, ['GNUmakefile', 'makefile'])).toEqual([
        'GNUmakefile',
        'makefile',
      ])
      running.kill()
      await watched.closed
      expect(existing(fixture.root, ['GNUmakefile', 'makefile'])).toEqual([])
      const timed = await sandbox.run(['sleep', '600'], { timeoutMs: 1000 })
      expect(timed.timedOut).toBe(true)
      expect(existing(fixture.root, ['GNUmakefile', 'makefile'])).toEqual([])
    },
    TIMEOUT,
  )

  it.runIf(process.getuid?.() === 0)(
    'should hold and remove the stand-ins alike for an agent that runs as an ordinary user',
    async () => {
      // A folder of nobody's own with a copy of this Node (its own may lie below a private home).
      const own = await mkdtemp('/tmp/plan-stand-ins-nobody-')
      try {
        const root = join(own, 'ws')
        await mkdir(join(own, 'tmp'), { recursive: true })
        await mkdir(root)
        await writeFile(join(root, 'Makefile'), MAKEFILE)
        await writeFile(join(root, 'evil.mk'), EVIL)
        initRepository(root, ['Makefile'])
        await rm(join(root, '.git', 'hooks'), { recursive: true })
        await copyFile(process.execPath, join(own, 'node'))
        await chmod(join(own, 'node'), 0o755)
        const standInHost = copyPackageFor(own)
        execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, own])
        const body = JSON.stringify({
          root,
          home: join(own, 'tmp'),
          path: '/usr/bin:/bin',
          readOnly: ['Makefile', '.git/hooks'],
          commands: [
            ['sh', '-c', 'cp evil.mk GNUmakefile || mkdir -p .git/hooks/x || echo REFUSED; make'],
          ],
        })
        const run = spawnSync(
          'setpriv',
          [
            `--reuid=${NOBODY}`,
            `--regid=${NOBODY}`,
            '--clear-groups',
            join(own, 'node'),
            standInHost,
            body,
          ],
          {
            encoding: 'utf8',
            env: { PATH: process.env.PATH ?? '', TMPDIR: join(own, 'tmp') },
            timeout: 60_000,
          },
        )
        expect(run.status, run.stderr).toBe(0)
        const report = JSON.parse(run.stdout) as { uid: number; results: { stdout: string }[] }
        expect(report.uid).toBe(NOBODY)
        expect(report.results[0]?.stdout).toBe(
          'REFUSED\nmade-by-the-real-makefile\necho built > out.txt\n',
        )
        expect(existing(root, ['GNUmakefile', 'makefile', '.git/hooks', '.git/commondir'])).toEqual(
          [],
        )
        const registry = join(own, 'tmp', `plan-sandbox-${NOBODY}`)
        expect(readdirSync(join(registry, 'leases'))).toEqual([])
        expect(readFileSync(join(registry, 'stand-ins.json'), 'utf8')).toBe('[]')
      } finally {
        await rm(own, { recursive: true, force: true })
      }
    },
    TIMEOUT,
  )
})
