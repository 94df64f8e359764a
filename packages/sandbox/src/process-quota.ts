import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import { posix } from 'node:path'

/** A pids cgroup that holds one sandbox: every process and thread of it counts, root's too. */
export interface ProcessQuota {
  /** The file a process writes its pid to, to join the cgroup (its children follow). */
  readonly procs: string
  readonly max: number
  /** Whether a fork or a new thread was refused at the quota. */
  reached(): boolean
  /** Kills what is left in the cgroup and removes it; safe to call more than once. */
  close(): void
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

/** The folder under which this process may create pids cgroups, or undefined. */
function pidsParent(): string | undefined {
  const membership = readText('/proc/self/cgroup') ?? ''
  const mounts = readText('/proc/self/mounts') ?? ''
  for (const line of membership.split('\n')) {
    const [, controllers, own] = line.split(':')
    if (own === undefined) continue
    const v1 = controllers?.split(',').includes('pids') === true
    const v2 = controllers === ''
    const mount = mounts
      .split('\n')
      .map((entry) => entry.split(' '))
      .find(([, , type, options]) =>
        v1 ? type === 'cgroup' && options?.split(',').includes('pids') : v2 && type === 'cgroup2',
      )?.[1]
    if (mount === undefined || !(v1 || v2)) continue
    const folder = posix.join(mount, own)
    if (v1) return folder
    // cgroup v2 gives a child the pids controller only where the parent delegates it.
    if (readText(posix.join(folder, 'cgroup.subtree_control'))?.includes('pids')) return folder
  }
  return undefined
}

let sequence = 0

// Cgroups not yet removed (their last processes were still exiting): tried again at exit.
const pending = new Set<string>()

function tryRemove(folder: string): boolean {
  try {
    rmdirSync(folder)
    pending.delete(folder)
    return true
  } catch {
    return !existsSync(folder)
  }
}

/** Removes the empty cgroups that sandboxes of processes no longer alive left behind. */
function removeStale(parent: string): void {
  let names: string[] = []
  try {
    names = readdirSync(parent)
  } catch {
    return
  }
  for (const name of names) {
    const owner = /^plan-sandbox-(\d+)-\d+$/.exec(name)?.[1]
    if (owner === undefined || Number(owner) === process.pid || isAlive(Number(owner))) continue
    tryRemove(posix.join(parent, name))
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Creates a pids cgroup for one sandbox with `pids.max` = `max` (cgroup v1 or a delegated v2
 * hierarchy, where this process may write), or returns undefined where there is none. Unlike
 * `RLIMIT_NPROC`, it holds for root of the host and counts only the sandbox's own processes.
 */
export function createProcessQuota(max: number): ProcessQuota | undefined {
  const parent = pidsParent()
  if (parent === undefined) return undefined
  if (sequence === 0) {
    removeStale(parent)
    process.once('exit', () => {
      for (const folder of pending) tryRemove(folder)
    })
  }
  sequence += 1
  const folder = posix.join(parent, `plan-sandbox-${process.pid}-${sequence}`)
  try {
    mkdirSync(folder)
    writeFileSync(posix.join(folder, 'pids.max'), String(max))
  } catch {
    try {
      rmdirSync(folder)
    } catch {
      // Never created.
    }
    return undefined
  }
  let closed = false
  return {
    procs: posix.join(folder, 'cgroup.procs'),
    max,
    reached: () => /^max [1-9]/m.test(readText(posix.join(folder, 'pids.events')) ?? ''),
    close() {
      if (closed) return
      closed = true
      killMembers(folder)
      // Removing a cgroup can wait on the kernel for milliseconds: off the command's path.
      pending.add(folder)
      setImmediate(() => removeCgroup(folder)).unref()
    },
  }
}

/** Kills every process left in the cgroup. */
function killMembers(folder: string): void {
  for (const pid of (readText(posix.join(folder, 'cgroup.procs')) ?? '').split('\n')) {
    if (!/^\d+$/.test(pid)) continue
    try {
      process.kill(Number(pid), 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
}

/** Kills every process left in the cgroup, then removes it, retrying while they exit. */
function removeCgroup(folder: string, attempt = 0): void {
  killMembers(folder)
  if (tryRemove(folder)) return
  pending.add(folder)
  if (attempt < 100) setTimeout(() => removeCgroup(folder, attempt + 1), 20).unref()
}

/** `argv` started so that it first joins the quota's cgroup: through `sh`, which writes its pid. */
export function joiningQuota(
  argv: readonly [string, ...string[]],
  quota: ProcessQuota | undefined,
  shell: string,
): readonly [string, ...string[]] {
  if (quota === undefined) return argv
  const join =
    'echo $$ > "$0" || { echo "plan-sandbox: cannot join the process quota\'s cgroup $0" >&2; exit 125; }; exec "$@"'
  // bash reads ~/.bashrc when its stdin is a socket, as Node's pipes are, unless told not to.
  const quiet = posix.basename(shell) === 'bash' ? ['--norc', '--noprofile'] : []
  return [shell, ...quiet, '-c', join, quota.procs, ...argv]
}
