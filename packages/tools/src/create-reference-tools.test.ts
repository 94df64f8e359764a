import { chmod, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { PlanCompiler } from '@plan/core'
import { createPlanCompiler, executePlan, PlanError } from '@plan/core'
import { createTestWorkspace, type TestWorkspace } from '@plan/core/test'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createReferenceTools, type ReferenceTools } from './create-reference-tools.js'
import { referenceToolPolicy } from './reference-tool-policy.js'

const context = () => ({ signal: new AbortController().signal, stepId: 'test' })

/** Resolves once a process with exactly these arguments runs (Linux: read from /proc). */
async function processStarted(argv: readonly string[]): Promise<void> {
  const wanted = `${argv.join('\0')}\0`
  for (;;) {
    for (const entry of await readdir('/proc')) {
      if (!/^\d+$/.test(entry)) continue
      const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')
      if (cmdline === wanted) return
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise
    return undefined
  } catch (error) {
    return PlanError.isInstance(error) ? error.issues[0]?.code : `thrown: ${String(error)}`
  }
}

describe('createReferenceTools', () => {
  let workspace: TestWorkspace
  let compiler: PlanCompiler
  let reference: ReferenceTools

  beforeEach(async () => {
    workspace = await createTestWorkspace({ files: {} })
    compiler = await createPlanCompiler({
      version: 1,
      workspace: { roots: [workspace.root], deny: ['secret'] },
      tools: referenceToolPolicy(),
      commands: { allow: ['ls', 'sleep', 'yes', 'printenv', 'cat', 'false'] },
    })
    reference = createReferenceTools(compiler, {
      viewFile: { maxBytes: 8 },
      listFiles: { maxEntries: 3 },
      runCommand: { timeoutMs: 60_000, maxOutputBytes: 1000, sandbox: 'none' },
    })
    await mkdir(join(workspace.root, 'src'))
    await writeFile(join(workspace.root, 'src', 'a.txt'), 'hello')
  })

  afterEach(async () => {
    await workspace.remove()
  })

  it('should return the tools with a matching policy fragment', () => {
    expect(Object.keys(reference.tools).sort()).toEqual([
      'list_files',
      'run_command',
      'view_file',
      'write_file',
    ])
    expect(reference.policy).toEqual(referenceToolPolicy())
  })

  describe('view_file', () => {
    it('should read a file and cut it at the size cap', async () => {
      expect(await reference.tools.view_file({ file: 'src/a.txt' }, context())).toEqual({
        content: 'hello',
        size: 5,
        truncated: false,
      })
      await writeFile(join(workspace.root, 'big.txt'), '0123456789')
      expect(await reference.tools.view_file({ file: 'big.txt' }, context())).toEqual({
        content: '01234567',
        size: 10,
        truncated: true,
      })
    })

    it('should refuse a link to /etc, a folder, and a path outside', async () => {
      await symlink('/etc/hostname', join(workspace.root, 'host'))
      expect(
        await codeOf(Promise.resolve(reference.tools.view_file({ file: 'host' }, context()))),
      ).toBe('path_outside_workspace')
      expect(
        await codeOf(Promise.resolve(reference.tools.view_file({ file: 'src' }, context()))),
      ).toBe('path_not_allowed')
      expect(
        await codeOf(
          Promise.resolve(reference.tools.view_file({ file: '/etc/passwd' }, context())),
        ),
      ).toBe('path_outside_workspace')
      expect(
        await codeOf(Promise.resolve(reference.tools.view_file({ file: 42 }, context()))),
      ).toBe('invalid_arguments')
    })
  })

  describe('write_file', () => {
    it('should write atomically, leave no temporary file and create missing folders', async () => {
      expect(
        await reference.tools.write_file({ file: 'out/new.txt', content: 'fresh' }, context()),
      ).toEqual({ bytes: 5, created: true })
      expect(await readFile(join(workspace.root, 'out', 'new.txt'), 'utf8')).toBe('fresh')
      expect(await readdir(join(workspace.root, 'out'))).toEqual(['new.txt'])
    })

    it('should keep the mode of a file it replaces', async () => {
      const file = join(workspace.root, 'src', 'a.txt')
      await chmod(file, 0o640)
      expect(
        await reference.tools.write_file({ file: 'src/a.txt', content: 'replaced' }, context()),
      ).toEqual({ bytes: 8, created: false })
      expect((await stat(file)).mode & 0o777).toBe(0o640)
      expect(await readFile(file, 'utf8')).toBe('replaced')
    })

    it('should never leave a half-written file while writers race', async () => {
      const big = (letter: string) => letter.repeat(200_000)
      await Promise.all(
        ['a', 'b', 'c', 'd'].map((letter) =>
          reference.tools.write_file({ file: 'race.txt', content: big(letter) }, context()),
        ),
      )
      const text = await readFile(join(workspace.root, 'race.txt'), 'utf8')
      expect(text.length).toBe(200_000)
      expect(new Set(text).size).toBe(1)
      expect((await readdir(workspace.root)).filter((name) => name.endsWith('.tmp'))).toEqual([])
    })

    it('should refuse a dangling link pointing outside, a denied folder and .git', async () => {
      await symlink(join(workspace.outside, 'planted'), join(workspace.root, 'dangling'))
      expect(
        await codeOf(
          Promise.resolve(
            reference.tools.write_file({ file: 'dangling', content: 'x' }, context()),
          ),
        ),
      ).toBe('path_outside_workspace')
      expect(
        await codeOf(
          Promise.resolve(
            reference.tools.write_file({ file: 'secret/x', content: 'x' }, context()),
          ),
        ),
      ).toBe('path_not_allowed')
      expect(
        await codeOf(
          Promise.resolve(
            reference.tools.write_file({ file: '.git/config', content: 'x' }, context()),
          ),
        ),
      ).toBe('path_not_allowed')
      expect(await readdir(workspace.outside)).toEqual([])
    })
  })

  describe('list_files', () => {
    it('should list a folder sorted, bounded, without denied entries', async () => {
      await mkdir(join(workspace.root, 'secret'))
      await writeFile(join(workspace.root, 'b.txt'), '')
      expect(await reference.tools.list_files({}, context())).toEqual({
        entries: [
          { name: 'b.txt', type: 'file' },
          { name: 'src', type: 'directory' },
        ],
        truncated: false,
      })
      for (const name of ['1', '2', '3', '4'])
        await writeFile(join(workspace.root, 'src', name), '')
      const listed = (await reference.tools.list_files({ dir: 'src' }, context())) as {
        entries: unknown[]
        truncated: boolean
      }
      expect(listed.entries).toHaveLength(3)
      expect(listed.truncated).toBe(true)
    })

    it('should refuse a folder reached through a link that leads out', async () => {
      await symlink(workspace.outside, join(workspace.root, 'out-link'))
      expect(
        await codeOf(Promise.resolve(reference.tools.list_files({ dir: 'out-link' }, context()))),
      ).toBe('path_outside_workspace')
    })
  })

  describe('run_command', () => {
    it('should refuse a folder that holds a link leading out, and allow one that does not', async () => {
      const { mkdtemp, rm } = await import('node:fs/promises')
      const { tmpdir } = await import('node:os')
      const outside = await mkdtemp(join(tmpdir(), 'plan-outside-'))
      try {
        await writeFile(join(outside, 'key.txt'), 'KEY=1\n')
        await mkdir(join(workspace.root, 'docs'))
        await symlink(outside, join(workspace.root, 'docs', 'vendor'))
        await symlink(join(workspace.root, 'secret'), join(workspace.root, 'src', 'hidden'))
        const run = (command: string) =>
          codeOf(Promise.resolve(reference.tools.run_command({ command }, context())))
        expect(await run('cat docs')).toBe('path_outside_workspace')
        expect(await run('ls src')).toBe('path_not_allowed')
        await rm(join(workspace.root, 'src', 'hidden'))
        expect(await run('ls src')).toBeUndefined()
      } finally {
        await rm(outside, { recursive: true, force: true })
      }
    })

    it('should run an allowed program without a shell, in the workspace', async () => {
      const result = await reference.tools.run_command({ command: 'ls src' }, context())
      expect(result).toEqual({
        exitCode: 0,
        signal: null,
        stdout: 'a.txt\n',
        stderr: '',
        truncated: false,
        timedOut: false,
        violations: [],
      })
      expect(await reference.tools.run_command({ command: 'false' }, context())).toMatchObject({
        exitCode: 1,
      })
    })

    it('should give the program a scrubbed environment', async () => {
      process.env.PLAN_SECRET_FOR_TEST = 'leak'
      try {
        const result = (await reference.tools.run_command({ command: 'printenv' }, context())) as {
          stdout: string
        }
        const names = result.stdout
          .trim()
          .split('\n')
          .map((line) => line.split('=')[0])
          .sort()
        expect(names).toEqual(['HOME', 'LANG', 'PATH'])
        expect(result.stdout).toContain(`HOME=${workspace.root}`)
      } finally {
        delete process.env.PLAN_SECRET_FOR_TEST
      }
    })

    it('should refuse every call without a runner unless sandbox is none', async () => {
      const closed = createReferenceTools(compiler)
      expect(
        await codeOf(Promise.resolve(closed.tools.run_command({ command: 'ls' }, context()))),
      ).toBe('sandbox_unavailable')
    })

    it('should hand the checked argv to the runner it is given', async () => {
      const calls: unknown[] = []
      const withRunner = createReferenceTools(compiler, {
        runCommand: {
          timeoutMs: 1_000,
          runner: async (argv, options) => {
            calls.push([argv, options.cwd, options.timeoutMs])
            return {
              exitCode: 0,
              signal: null,
              stdout: 'ran',
              stderr: '',
              truncated: false,
              timedOut: false,
              violations: [],
            }
          },
        },
      })
      expect(await withRunner.tools.run_command({ command: 'ls "src"' }, context())).toMatchObject({
        stdout: 'ran',
      })
      expect(calls).toEqual([[['ls', 'src'], workspace.root, 1_000]])
      expect(
        await codeOf(
          Promise.resolve(withRunner.tools.run_command({ command: 'ls; id' }, context())),
        ),
      ).toMatch(/^command_/)
      expect(calls).toHaveLength(1)
    })

    it('should refuse a command the policy denies', async () => {
      expect(
        await codeOf(
          Promise.resolve(reference.tools.run_command({ command: 'ls; rm -rf /' }, context())),
        ),
      ).toMatch(/^command_/)
      expect(
        await codeOf(
          Promise.resolve(reference.tools.run_command({ command: 'curl example.com' }, context())),
        ),
      ).toMatch(/^command_/)
    })

    it('should check path arguments on disk, so a link cannot lead the program out', async () => {
      await symlink('/etc/hostname', join(workspace.root, 'host'))
      expect(
        await codeOf(
          Promise.resolve(reference.tools.run_command({ command: 'cat host' }, context())),
        ),
      ).toBe('path_outside_workspace')
      await symlink('/etc', join(workspace.root, 'etc-link'))
      expect(
        await codeOf(
          Promise.resolve(
            reference.tools.run_command({ command: 'cat etc-link/hostname' }, context()),
          ),
        ),
      ).toBe('path_outside_workspace')
      expect(
        await reference.tools.run_command({ command: 'cat src/a.txt' }, context()),
      ).toMatchObject({ exitCode: 0, stdout: 'hello' })
    })

    it('should kill a program at its timeout and cap its output', async () => {
      const slow = createReferenceTools(compiler, {
        runCommand: { timeoutMs: 100, sandbox: 'none' },
      })
      const timed = await slow.tools.run_command({ command: 'sleep 5' }, context())
      expect(timed).toMatchObject({ timedOut: true, exitCode: null })
      const flood = (await reference.tools.run_command({ command: 'yes' }, context())) as {
        stdout: string
        truncated: boolean
      }
      expect(flood.truncated).toBe(true)
      expect(flood.stdout.length).toBe(1000)
    })

    it('should not start the program when its signal has already aborted', async () => {
      const controller = new AbortController()
      controller.abort()
      const run = reference.tools.run_command(
        { command: 'sleep 5' },
        { signal: controller.signal, stepId: 's' },
      )
      await expect(Promise.resolve(run)).rejects.toMatchObject({ name: 'AbortError' })
    })

    // The program is seen running before the abort, however slow the machine is.
    it.skipIf(process.platform !== 'linux')(
      'should stop the program when its signal aborts while it runs',
      async () => {
        const controller = new AbortController()
        const run = reference.tools.run_command(
          { command: 'sleep 7.25' },
          { signal: controller.signal, stepId: 's' },
        )
        await processStarted(['sleep', '7.25'])
        controller.abort()
        expect(await run).toMatchObject({ exitCode: null, signal: 'SIGKILL' })
      },
      60_000,
    )
  })

  it('should run a plan end to end through the executor', async () => {
    const plan = compiler.compile([
      { id: 'write', tool: 'write_file', args: { file: 'notes/today.md', content: 'hi' } },
      { id: 'read', tool: 'view_file', args: { file: 'notes/today.md' }, depends_on: ['write'] },
      { id: 'list', tool: 'list_files', args: { dir: 'notes' }, depends_on: ['write'] },
    ])
    const result = await executePlan(plan, reference.tools, { compiler })
    expect(result.status).toBe('completed')
    expect(result.steps.read?.output).toEqual({ content: 'hi', size: 2, truncated: false })
    expect(result.steps.list?.output).toEqual({
      entries: [{ name: 'today.md', type: 'file' }],
      truncated: false,
    })
  })
})
