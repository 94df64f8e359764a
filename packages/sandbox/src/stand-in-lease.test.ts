import { execFileSync, spawnSync } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { resolvePolicy } from '@plan/core/schemas'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createSandboxConfig, type SandboxConfig } from './sandbox-config.js'
import { SandboxError } from './sandbox-error.js'
import { leaseStandIns, liveStandIns } from './stand-in-lease.js'
import { StandInRegistry } from './stand-in-registry.js'
import { gitIdentity, initRepository } from './test-utils/sandbox-fixture.js'
import { scanWorkspace } from './workspace-scan.js'

const MAKEFILE = 'all:\n\t@echo made-by-the-real-makefile\n'

/** A pid no process holds any more: that of a child that has exited and been reaped. */
function deadPid(): number {
  const pid = spawnSync('true').pid
  if (pid === undefined) throw new Error('true did not start')
  return pid
}

function host(cwd: string, program: string, ...args: string[]): string {
  return execFileSync(program, args, {
    cwd,
    env: { ...gitIdentity(), PATH: process.env.PATH ?? '', HOME: cwd },
    encoding: 'utf8',
  })
}

describe('leaseStandIns', () => {
  let base: string
  let root: string
  let registry: StandInRegistry
  let config: SandboxConfig

  beforeEach(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'plan-stand-ins-')))
    root = join(base, 'ws')
    await mkdir(root)
    await writeFile(join(root, 'a.txt'), 'hello\n')
    await writeFile(join(root, 'Makefile'), MAKEFILE)
    registry = new StandInRegistry(join(base, 'registry'))
    config = createSandboxConfig(
      resolvePolicy({
        version: 1,
        workspace: { roots: [root], readOnly: ['Makefile', '.git/hooks'], deny: ['.env'] },
        tools: {},
      }),
    )
  })

  afterEach(async () => {
    await rm(base, { recursive: true, force: true })
  })

  const lease = () => leaseStandIns(config, scanWorkspace(config.writable), registry)

  it('should put read-only stand-ins in place that host make and git take as absent', () => {
    initRepository(root)
    rmSync(join(root, '.git', 'hooks'), { recursive: true })
    const held = lease()
    expect(
      ['GNUmakefile', 'makefile', '.env', '.git/hooks', '.git/commondir', '.git/worktrees'].map(
        (name) => [name, held.paths.includes(join(root, name))],
      ),
    ).toEqual(
      ['GNUmakefile', 'makefile', '.env', '.git/hooks', '.git/commondir', '.git/worktrees'].map(
        (name) => [name, true],
      ),
    )
    expect(readFileSync(join(root, 'GNUmakefile'), 'utf8')).toBe('-include Makefile\n')
    expect(lstatSync(join(root, 'GNUmakefile')).mode & 0o777).toBe(0o444)
    expect(lstatSync(join(root, '.git', 'hooks')).isDirectory()).toBe(true)
    // What a crash would leave: the user's own make and git work as before.
    expect(host(root, 'make')).toBe('made-by-the-real-makefile\n')
    host(root, 'git', 'commit', '-q', '--allow-empty', '-m', 'with stand-ins')
    // They are files of the work tree all the same, until the command ends.
    expect(host(root, 'git', 'status', '--short')).toBe(
      '?? .env\n?? GNUmakefile\n?? Makefile\n?? makefile\n',
    )
    held.release()
    for (const name of ['GNUmakefile', 'makefile', '.env', '.git/hooks', '.git/commondir'])
      expect([name, existsSync(join(root, name))]).toEqual([name, false])
    expect(liveStandIns(registry).size).toBe(0)
  })

  it('should keep a stand-in while another command holds it, and remove it after the last', () => {
    const first = lease()
    const second = lease()
    expect([...second.paths].sort()).toEqual([...first.paths].sort())
    first.release()
    expect(existsSync(join(root, 'GNUmakefile'))).toBe(true)
    second.release()
    expect(existsSync(join(root, 'GNUmakefile'))).toBe(false)
  })

  it('should remove the stand-ins of a command whose processes are gone, at the next lease', () => {
    lease().attach(deadPid())
    const [crashed] = readdirSync(join(registry.folder, 'leases'))
    // The agent's process that held it is gone as well: nothing will release it.
    const hold = JSON.parse(readFileSync(join(registry.folder, 'leases', crashed ?? ''), 'utf8'))
    registry.writeLease(crashed ?? '', { ...hold, pids: [deadPid(), deadPid()] })
    expect(existsSync(join(root, 'GNUmakefile'))).toBe(true)
    const next = lease()
    expect(existsSync(join(root, 'GNUmakefile'))).toBe(true)
    next.release()
    expect(existsSync(join(root, 'GNUmakefile'))).toBe(false)
    expect(registry.records().size).toBe(0)
    expect(readdirSync(join(registry.folder, 'leases'))).toEqual([])
  })

  it('should leave a stand-in a host process changed, replaced or filled', () => {
    initRepository(root)
    rmSync(join(root, '.git', 'hooks'), { recursive: true })
    const held = lease()
    chmodSync(join(root, 'makefile'), 0o644)
    writeFileSync(join(root, 'makefile'), 'all:\n\t@echo written-by-the-user\n')
    // Replaced by rename, as editors save: the new file exists beside the old one first, so it
    // cannot be given the old one's inode number (a plain remove and create may be).
    writeFileSync(join(root, 'GNUmakefile.new'), '-include Makefile\n')
    renameSync(join(root, 'GNUmakefile.new'), join(root, 'GNUmakefile'))
    chmodSync(join(root, '.git', 'hooks'), 0o755)
    writeFileSync(join(root, '.git', 'hooks', 'post-commit'), '#!/bin/sh\n')
    held.release()
    expect(readFileSync(join(root, 'makefile'), 'utf8')).toContain('written-by-the-user')
    expect(existsSync(join(root, 'GNUmakefile'))).toBe(true)
    expect(existsSync(join(root, '.git', 'hooks', 'post-commit'))).toBe(true)
    expect(existsSync(join(root, '.env'))).toBe(false)
    expect(liveStandIns(registry).size).toBe(0)
  })

  it('should make nothing for a protected path below a file, or one that exists', async () => {
    await writeFile(join(root, '.git'), 'gitdir: /nowhere\n')
    const held = lease()
    expect(held.paths).not.toContain(join(root, '.git', 'hooks'))
    expect(held.paths).not.toContain(join(root, 'Makefile'))
    expect(lstatSync(join(root, '.git')).isFile()).toBe(true)
    held.release()
  })

  it('should make nothing inside a folder that is read-only already', () => {
    initRepository(root)
    config = createSandboxConfig(
      resolvePolicy({
        version: 1,
        workspace: { roots: [root], readOnly: ['.git/hooks', '.git/hooks/pre-commit'] },
        tools: {},
      }),
    )
    const held = lease()
    expect(held.paths).not.toContain(join(root, '.git', 'hooks', 'pre-commit'))
    expect(existsSync(join(root, '.git', 'hooks', 'pre-commit'))).toBe(false)
    held.release()
  })

  it('should refuse a registry folder that others can write', async () => {
    await mkdir(registry.folder, { recursive: true })
    chmodSync(registry.folder, 0o777)
    const refused = (() => {
      try {
        lease()
      } catch (error) {
        return SandboxError.isInstance(error) ? error.issues[0]?.code : 'other'
      }
      return 'leased'
    })()
    expect(refused).toBe('sandbox_failed')
    expect(existsSync(join(root, 'GNUmakefile'))).toBe(false)
  })

  it('should refuse a registry inside a workspace root, where a command could write records', () => {
    registry = new StandInRegistry(join(root, 'tmp', 'registry'))
    const refused = (() => {
      try {
        lease()
      } catch (error) {
        return SandboxError.isInstance(error) ? error.issues[0]?.code : 'other'
      }
      return 'leased'
    })()
    expect(refused).toBe('sandbox_failed')
    expect(existsSync(join(root, 'tmp'))).toBe(false)
  })

  it('should break a lock left by a process that is gone', async () => {
    await mkdir(registry.folder, { recursive: true, mode: 0o700 })
    writeFileSync(join(registry.folder, 'lock'), String(deadPid()))
    const held = lease()
    expect(existsSync(join(root, 'GNUmakefile'))).toBe(true)
    held.release()
    expect(existsSync(join(registry.folder, 'lock'))).toBe(false)
  })
})
