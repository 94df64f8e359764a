import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PlanError, PolicyError } from '@plan/shell/common'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadPolicy, resolvePolicy } from './resolve-policy.js'

const minimal = { version: 1, workspace: { roots: ['/srv/repo'] }, tools: {} }

describe('resolvePolicy', () => {
  it('should apply defaults and resolve roots', () => {
    const resolved = resolvePolicy(minimal)
    expect(resolved.scope.roots).toEqual(['/srv/repo'])
    // The code-running parts of .git, not all of it: git add and git commit write the rest.
    expect(resolved.scope.readOnly).toEqual([
      '/srv/repo/.git/config',
      '/srv/repo/.git/config.worktree',
      '/srv/repo/.git/hooks',
      '/srv/repo/.git/info',
      '/srv/repo/.git/objects/info/alternates',
      '/srv/repo/.git/objects/info/http-alternates',
      '/srv/repo/.git/commondir',
      '/srv/repo/.git/modules',
      '/srv/repo/.git/worktrees',
    ])
    expect(resolved.policy.budgets.maxSteps).toBe(1000)
    expect(resolved.policy.commands.allow).toEqual([])
  })

  it('should resolve relative roots against baseDir', () => {
    expect(
      resolvePolicy({ ...minimal, workspace: { roots: ['repo/'] } }, { baseDir: '/srv' }).scope
        .roots,
    ).toEqual(['/srv/repo'])
  })

  it.each([
    ['an unknown top-level key', { ...minimal, tool: {} }],
    ['an unknown tool key', { ...minimal, tools: { a: { argz: {} } } }],
    ['an unknown argument type', { ...minimal, tools: { a: { args: { x: { type: 'file' } } } } }],
    ['version 2', { ...minimal, version: 2 }],
    ['no roots', { ...minimal, workspace: { roots: [] } }],
    ['a program given as a path', { ...minimal, commands: { allow: ['/bin/sh'] } }],
    ['a root with NUL', { ...minimal, workspace: { roots: ['/srv/repo\0'] } }],
    ['a deny entry with NUL', { ...minimal, workspace: { roots: ['/srv'], deny: ['.env\0'] } }],
    ['a deny entry with backslash', { ...minimal, workspace: { roots: ['/srv'], deny: ['a\\b'] } }],
    [
      'a deny entry in the home folder',
      { ...minimal, workspace: { roots: ['/home/me'], deny: ['~/.ssh'] } },
    ],
    ['a root in a home folder', { ...minimal, workspace: { roots: ['~alice/src'] } }],
    ['a deny pattern', { ...minimal, workspace: { roots: ['/srv'], deny: ['*.pem'] } }],
    [
      'a deny pattern below a folder',
      { ...minimal, workspace: { roots: ['/srv'], deny: ['k/**/*.pem'] } },
    ],
    [
      'a read-only pattern',
      { ...minimal, workspace: { roots: ['/srv'], readOnly: ['.git/hook?'] } },
    ],
    [
      'a read-only entry with NUL',
      { ...minimal, workspace: { roots: ['/srv'], readOnly: ['x\0'] } },
    ],
    ['a negative budget', { ...minimal, budgets: { maxSteps: -1 } }],
    ['not an object', 'policy'],
  ])('should reject %s with PolicyError listing invalid_policy issues', (_name, input) => {
    let caught: unknown
    try {
      resolvePolicy(input)
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(PolicyError)
    expect(PlanError.isInstance(caught)).toBe(true)
    const codes = (caught as PolicyError).issues.map((found) => found.code)
    expect(new Set(codes)).toEqual(new Set(['invalid_policy']))
  })

  it('should name the workspace entry with NUL or backslash, and keep its neighbours', () => {
    const workspace = { roots: ['/srv'], deny: ['.env', 'keys/a\\b'], readOnly: ['.git/hooks'] }
    expect(() => resolvePolicy({ ...minimal, workspace })).toThrow(
      expect.objectContaining({
        issues: [
          expect.objectContaining({ code: 'invalid_policy', path: ['workspace', 'deny', 1] }),
        ],
      }),
    )
    const allowed = {
      roots: ['/srv'],
      deny: ['.env', 'secrets/prod key.pem'],
      readOnly: ['.git/hooks'],
    }
    expect(resolvePolicy({ ...minimal, workspace: allowed }).scope.deny).toEqual([
      '/srv/.env',
      '/srv/secrets/prod key.pem',
    ])
  })

  it('should take a final /** of a deny or read-only entry as the folder itself', () => {
    const workspace = { roots: ['/srv'], deny: ['secrets/**', '/etc/keys/**'], readOnly: ['**'] }
    const { scope } = resolvePolicy({ ...minimal, workspace })
    expect(scope.deny).toEqual(['/srv/secrets', '/etc/keys'])
    expect(scope.readOnly).toContain('/srv')
    const named = { roots: ['/srv'], deny: ['pages/[id].tsx', '~$report.docx', 'a~/b'] }
    expect(resolvePolicy({ ...minimal, workspace: named }).scope.deny).toEqual([
      '/srv/pages/[id].tsx',
      '/srv/~$report.docx',
      '/srv/a~/b',
    ])
  })

  it('should accept sandbox resource limits as positive integers', () => {
    const limits = {
      cpuSeconds: 30,
      fileSizeBytes: 1 << 30,
      openFiles: 256,
      processes: 64,
      memoryBytes: 2 ** 31,
      tmpBytes: 1 << 28,
    }
    expect(resolvePolicy({ ...minimal, sandbox: { limits } }).policy.sandbox?.limits).toEqual(
      limits,
    )
    expect(resolvePolicy({ ...minimal, sandbox: {} }).policy.sandbox?.limits).toBeUndefined()
  })

  it.each([
    [{ cpuSeconds: 0 }, 'cpuSeconds'],
    [{ openFiles: -1 }, 'openFiles'],
    [{ fileSizeBytes: 1.5 }, 'fileSizeBytes'],
    [{ memoryBytes: '1G' }, 'memoryBytes'],
    [{ processes: 2 ** 53 }, 'processes'],
    [{ stackBytes: 1 }, ''],
  ])('should reject the sandbox limits %j at sandbox.limits.%s', (limits, field) => {
    let caught: unknown
    try {
      resolvePolicy({ ...minimal, sandbox: { limits } })
    } catch (error) {
      caught = error
    }
    expect(PolicyError.isInstance(caught)).toBe(true)
    const [issue] = (caught as PolicyError).issues
    expect(issue).toMatchObject({ code: 'invalid_policy', hint: expect.any(String) })
    expect(issue?.path).toEqual(['sandbox', 'limits', ...(field === '' ? [] : [field])])
  })
})

describe('loadPolicy', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plan-policy-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it("should resolve relative roots against the file's folder", async () => {
    const file = join(dir, 'policy.json')
    await writeFile(file, JSON.stringify({ ...minimal, workspace: { roots: ['./repo'] } }))
    expect((await loadPolicy(file)).scope.roots).toEqual([join(dir, 'repo')])
  })

  it('should reject unreadable and non-JSON files with PolicyError', async () => {
    await expect(loadPolicy(join(dir, 'missing.json'))).rejects.toBeInstanceOf(PolicyError)
    const broken = join(dir, 'broken.json')
    await writeFile(broken, '{ "version": 1,')
    await expect(loadPolicy(broken)).rejects.toBeInstanceOf(PolicyError)
  })
})
