import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { PathScope } from '@plan/shell/common'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { checkPathOnDisk } from './path-on-disk.js'

describe('checkPathOnDisk', () => {
  let base: string
  let root: string
  let outside: string
  let scope: PathScope

  beforeEach(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'plan-disk-')))
    root = join(base, 'ws')
    outside = join(base, 'outside')
    await mkdir(join(root, 'src', 'deep'), { recursive: true })
    await mkdir(join(root, '.git'), { recursive: true })
    await mkdir(join(root, 'secret'), { recursive: true })
    await mkdir(outside, { recursive: true })
    await writeFile(join(root, 'src', 'a.txt'), 'a')
    await writeFile(join(outside, 'x'), 'outside x')
    scope = { roots: [root], readOnly: [join(root, '.git')], deny: [join(root, 'secret')] }
  })

  afterEach(async () => {
    await rm(base, { recursive: true, force: true })
  })

  it('should allow an existing file and return its real path', async () => {
    expect(await checkPathOnDisk('src/a.txt', scope)).toEqual({
      allowed: true,
      resolved: join(root, 'src', 'a.txt'),
    })
  })

  it('should allow a file that does not exist yet below an existing folder', async () => {
    expect(await checkPathOnDisk('src/new/later.txt', scope, 'write')).toEqual({
      allowed: true,
      resolved: join(root, 'src', 'new', 'later.txt'),
    })
  })

  it('should follow links met after a missing folder (missing/../link/x)', async () => {
    await symlink(outside, join(root, 'link'))
    for (const value of [
      'missing/../link/x',
      'missing/deeper/../../link/x',
      'src/missing/../../link',
    ]) {
      const result = await checkPathOnDisk(value, scope, 'write')
      expect(result.allowed, value).toBe(false)
      if (!result.allowed) expect(result.issue.code).toBe('path_outside_workspace')
    }
    expect(await checkPathOnDisk('missing/../src/a.txt', scope)).toEqual({
      allowed: true,
      resolved: join(root, 'src', 'a.txt'),
    })
  })

  it('should keep the lexical checks', async () => {
    const result = await checkPathOnDisk('../outside/x', scope)
    expect(result.allowed).toBe(false)
    if (!result.allowed) expect(result.issue.code).toBe('path_outside_workspace')
  })

  it('should deny a symlink inside the workspace that points at /etc', async () => {
    await symlink('/etc', join(root, 'etc-link'))
    const result = await checkPathOnDisk('etc-link/passwd', scope)
    expect(result.allowed).toBe(false)
    if (!result.allowed) {
      expect(result.issue.code).toBe('path_outside_workspace')
      expect(result.issue.message).toContain('/etc/passwd')
    }
    expect((await checkPathOnDisk('etc-link', scope)).allowed).toBe(false)
  })

  it('should deny a dangling link that points outside, judged by its target', async () => {
    await symlink(join(outside, 'not-yet.txt'), join(root, 'dangling'))
    const result = await checkPathOnDisk('dangling', scope, 'write')
    expect(result.allowed).toBe(false)
    if (!result.allowed) expect(result.issue.code).toBe('path_outside_workspace')
  })

  it('should deny a dangling link whose target folder is missing outside', async () => {
    await symlink(join(outside, 'missing', 'deeper', 'f'), join(root, 'dangling2'))
    expect((await checkPathOnDisk('dangling2', scope, 'write')).allowed).toBe(false)
  })

  it('should allow a dangling link that points inside the workspace', async () => {
    await symlink('src/created-later.txt', join(root, 'inner-link'))
    expect(await checkPathOnDisk('inner-link', scope, 'write')).toEqual({
      allowed: true,
      resolved: join(root, 'src', 'created-later.txt'),
    })
  })

  it('should apply .. after following a link, as the kernel does (link/../x)', async () => {
    // ws/link -> outside/sub, so ws/link/../x is outside/x on disk although it looks like ws/x.
    await mkdir(join(outside, 'sub'))
    await symlink(join(outside, 'sub'), join(root, 'link'))
    await writeFile(join(root, 'x'), 'inside x')
    const result = await checkPathOnDisk('link/../x', scope)
    expect(result.allowed).toBe(false)
    if (!result.allowed) expect(result.issue.message).toContain(join(outside, 'x'))
  })

  it('should allow link/../x when the link target stays inside', async () => {
    await symlink('src/deep', join(root, 'to-deep'))
    expect(await checkPathOnDisk('to-deep/../a.txt', scope)).toEqual({
      allowed: true,
      resolved: join(root, 'src', 'a.txt'),
    })
  })

  it('should check a file created after compile time when it is checked', async () => {
    expect((await checkPathOnDisk('later', scope, 'write')).allowed).toBe(true)
    await symlink('/etc/hostname', join(root, 'later'))
    expect((await checkPathOnDisk('later', scope, 'write')).allowed).toBe(false)
  })

  it('should deny a link loop (ELOOP)', async () => {
    await symlink(join(root, 'loop-b'), join(root, 'loop-a'))
    await symlink(join(root, 'loop-a'), join(root, 'loop-b'))
    const result = await checkPathOnDisk('loop-a/file', scope)
    expect(result.allowed).toBe(false)
    if (!result.allowed) expect(result.issue.message).toContain('ELOOP')
  })

  it('should deny a path that goes through a regular file', async () => {
    expect((await checkPathOnDisk('src/a.txt/../a.txt', scope)).allowed).toBe(false)
  })

  it('should deny a folder it cannot search (EACCES)', async () => {
    if (process.getuid?.() === 0) return
    const locked = join(root, 'locked')
    await mkdir(locked, { mode: 0o000 })
    const result = await checkPathOnDisk('locked/file', scope)
    expect(result.allowed).toBe(false)
  })

  it('should accept a root that is itself a symlink', async () => {
    const linkedRoot = join(base, 'root-link')
    await symlink(root, linkedRoot)
    const linkedScope: PathScope = {
      roots: [linkedRoot],
      readOnly: [],
      deny: [join(linkedRoot, 'secret')],
    }
    expect(await checkPathOnDisk('src/a.txt', linkedScope)).toEqual({
      allowed: true,
      resolved: join(root, 'src', 'a.txt'),
    })
    expect((await checkPathOnDisk('secret/key', linkedScope)).allowed).toBe(false)
  })

  it('should apply deny rules to the real path', async () => {
    await symlink('secret', join(root, 'innocent'))
    const result = await checkPathOnDisk('innocent/key', scope)
    expect(result.allowed).toBe(false)
    if (!result.allowed) expect(result.issue.code).toBe('path_not_allowed')
  })

  it('should name the deny entry as written when it holds the path, else its real path', async () => {
    await mkdir(join(root, 'secret', 'inner'), { recursive: true })
    await symlink('secret/inner', join(root, 'inner-alias'))
    await symlink('secret/inner', join(root, 'x-link'))
    const linkedRoot = join(base, 'root-link')
    await symlink(root, linkedRoot)
    const named = async (deny: string[]) => {
      const result = await checkPathOnDisk('x-link/key', { roots: [root], readOnly: [], deny })
      return result.allowed ? 'allowed' : result.issue.message
    }
    const secret = join(root, 'secret')
    // the written secret holds the real path, as does the real path of inner-alias after it
    expect(await named([join(root, 'inner-alias'), secret])).toContain(
      `under ${secret}, which is in workspace.deny`,
    )
    expect(await named([join(linkedRoot, 'secret')])).toContain(
      `under ${secret}, which is in workspace.deny`,
    )
    expect(await named([join(linkedRoot, 'src')])).toBe('allowed')
  })

  it('should apply read-only rules to the real path of a write', async () => {
    await symlink('.git', join(root, 'git-link'))
    expect((await checkPathOnDisk('git-link/config', scope, 'read')).allowed).toBe(true)
    const result = await checkPathOnDisk('git-link/config', scope, 'write')
    expect(result.allowed).toBe(false)
    if (!result.allowed) expect(result.issue.code).toBe('path_not_allowed')
  })

  it('should deny a missing deny entry of a linked root by its real path, and allow its neighbour', async () => {
    const linkedRoot = join(base, 'root-link')
    await symlink(root, linkedRoot)
    const linkedScope: PathScope = {
      roots: [linkedRoot],
      readOnly: [],
      deny: [join(linkedRoot, '.env'), join(linkedRoot, 'src', '.env')],
    }
    // the deny entries do not exist; the root is also their folder, resolved through the link
    for (const path of [join(linkedRoot, '.env'), '.env', 'src/.env', 'src/deep/../.env']) {
      const result = await checkPathOnDisk(path, linkedScope)
      expect(result.allowed ? 'allowed' : result.issue.code).toBe('path_not_allowed')
    }
    expect(await checkPathOnDisk('.env.example', linkedScope)).toEqual({
      allowed: true,
      resolved: join(root, '.env.example'),
    })
  })
})
