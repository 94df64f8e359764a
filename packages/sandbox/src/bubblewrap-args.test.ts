import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { resolvePolicy } from '@plan/core/schemas'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { bubblewrapArgs } from './bubblewrap-args.js'
import { createSandboxConfig } from './sandbox-config.js'
import { SandboxError } from './sandbox-error.js'

describe('bubblewrapArgs', () => {
  let root: string

  beforeEach(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'plan-bwrap-args-')))
    await mkdir(join(root, '.git', 'hooks'), { recursive: true })
    await writeFile(join(root, '.git', 'config'), '[core]\n')
    await mkdir(join(root, 'secrets'))
    await writeFile(join(root, '.env'), 'x')
  })

  afterEach(async () => {
    await rm(root, { recursive: true, force: true })
  })

  const configFor = (extra: object = {}) =>
    createSandboxConfig(
      resolvePolicy({
        version: 1,
        workspace: { roots: [root], deny: ['.env', 'secrets', 'absent'] },
        tools: {},
        ...extra,
      }),
      { hostHome: '/nonexistent-home' },
    )

  it('should isolate every namespace, bind the workspace and mask what the policy hides', () => {
    const args = bubblewrapArgs(configFor(), { argv: ['git', 'status'], cwd: root })
    const text = args.join(' ')
    for (const flag of [
      '--unshare-user',
      '--unshare-pid',
      '--unshare-net',
      '--die-with-parent',
      '--new-session',
      '--clearenv',
    ])
      expect(args).toContain(flag)
    expect(text).toContain('--cap-drop ALL')
    expect(text).toContain(`--bind ${root} ${root}`)
    // .git stays writable but cannot be renamed away (a mount point); its code parts are read-only.
    expect(text).toContain(`--bind ${root}/.git ${root}/.git`)
    expect(text).toContain(`--ro-bind ${root}/.git/hooks ${root}/.git/hooks`)
    expect(text).toContain(`--ro-bind ${root}/.git/config ${root}/.git/config`)
    expect(text).toContain(`--ro-bind /dev/null ${root}/.env`)
    expect(text).toContain(`--tmpfs ${root}/secrets --remount-ro ${root}/secrets`)
    expect(text).not.toContain('absent')
    expect(text.endsWith(`--chdir ${root} -- git status`)).toBe(true)
    // The workspace bind comes after the fresh /tmp, and the masks after the workspace bind.
    expect(args.indexOf('--tmpfs')).toBeLessThan(args.indexOf('--bind'))
    expect(args.indexOf(`${root}/.git`)).toBeLessThan(args.indexOf(`${root}/.git/hooks`))
    const readOnlyGit = bubblewrapArgs(
      configFor({ workspace: { roots: [root], readOnly: ['.git'] } }),
      {
        argv: ['true'],
        cwd: root,
      },
    ).join(' ')
    // A readOnly git folder: pinned in place, its code parts read-only, its data git's to write.
    expect(readOnlyGit).toContain(`--bind ${root}/.git ${root}/.git`)
    expect(readOnlyGit).toContain(`--ro-bind ${root}/.git/config ${root}/.git/config`)
    expect(readOnlyGit).not.toContain(`--ro-bind ${root}/.git ${root}/.git `)
  })

  it('should refuse a working folder outside the workspace', () => {
    expect(() => bubblewrapArgs(configFor(), { argv: ['ls'], cwd: '/etc' })).toThrow(SandboxError)
  })

  it('should pass only allow-listed variables and a private HOME', () => {
    process.env.PLAN_BWRAP_SECRET = 'secret'
    try {
      const args = bubblewrapArgs(configFor(), { argv: ['env'], cwd: root, env: { EXTRA: '1' } })
      expect(args.join(' ')).not.toContain('PLAN_BWRAP_SECRET')
      expect(args.join(' ')).toContain('--setenv EXTRA 1')
      const home = args[args.indexOf('HOME', args.indexOf('--setenv')) + 1]
      expect(home?.startsWith(root)).toBe(false)
    } finally {
      delete process.env.PLAN_BWRAP_SECRET
    }
  })

  it('should forbid nested user namespaces right after creating its own, only when asked', () => {
    const asked = bubblewrapArgs(configFor(), { argv: ['true'], cwd: root, disableUserns: true })
    expect(asked[asked.indexOf('--unshare-user') + 1]).toBe('--unshare-pid')
    expect(asked).toContain('--disable-userns')
    expect(asked.indexOf('--disable-userns')).toBeLessThan(asked.indexOf('--chdir'))
    expect(bubblewrapArgs(configFor(), { argv: ['true'], cwd: root })).not.toContain(
      '--disable-userns',
    )
  })

  it('should size the private /tmp only when asked', () => {
    const sized = bubblewrapArgs(configFor(), { argv: ['true'], cwd: root, tmpBytes: 4096 })
    expect(sized.join(' ')).toContain('--size 4096 --tmpfs /tmp')
    expect(bubblewrapArgs(configFor(), { argv: ['true'], cwd: root })).not.toContain('--size')
  })

  it('should ask for the JSON status on its descriptor, before the command, only when asked', () => {
    const asked = bubblewrapArgs(configFor(), { argv: ['true'], cwd: root, statusFd: 4 })
    expect(asked[asked.indexOf('--json-status-fd') + 1]).toBe('4')
    expect(asked.indexOf('--json-status-fd')).toBeLessThan(asked.indexOf('--'))
    expect(bubblewrapArgs(configFor(), { argv: ['true'], cwd: root })).not.toContain(
      '--json-status-fd',
    )
  })
})
