import type { ChildProcess } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { constants } from 'node:os'

function send(target: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(target, signal)
    return true
  } catch {
    // Already gone.
    return false
  }
}

/** The parent pid in a /proc/<pid>/stat line, read after the command name, which may hold spaces. */
function parentInStat(stat: string): number | undefined {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const parent = Number(fields[1])
  return Number.isInteger(parent) ? parent : undefined
}

/** Direct children of `pid` by scanning every process, for kernels without the children files. */
export function scanForChildren(pid: number): number[] {
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return []
  }
  const found: number[] = []
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (parentInStat(readFileSync(`/proc/${entry}/stat`, 'utf8')) === pid) found.push(+entry)
    } catch {
      // Exited while listed.
    }
  }
  return found
}

/** The direct children of `pid` (of each of its threads), or none when it is gone. */
export function childrenOf(pid: number): number[] {
  let threads: string[]
  try {
    threads = readdirSync(`/proc/${pid}/task`)
  } catch {
    return []
  }
  const found: number[] = []
  for (const thread of threads) {
    let listed: string
    try {
      listed = readFileSync(`/proc/${pid}/task/${thread}/children`, 'utf8')
    } catch {
      return scanForChildren(pid)
    }
    for (const child of listed.split(' ')) if (child.length > 0) found.push(Number(child))
  }
  return found
}

/** A process by its pid and its start time, which a later process of the same pid lacks. */
interface StartedProcess {
  readonly pid: number
  readonly start: string
}

// The sandbox processes each ending killed, to tell when they are gone.
const killed = new WeakMap<ChildProcess, StartedProcess[]>()

/** The state and start time in a /proc/<pid>/stat line (fields 3 and 22). */
function stateOf(pid: number): { state: string; start: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return { state: fields[0] ?? '', start: fields[19] ?? '' }
  } catch {
    return undefined
  }
}

function started(pid: number): StartedProcess[] {
  const found = stateOf(pid)
  return found === undefined ? [] : [{ pid, start: found.start }]
}

/**
 * Whether every process of a sandbox is gone once bubblewrap itself has exited: pid 1 of its
 * PID namespace (the only one that can outlive bubblewrap, when it was killed) is gone or a
 * zombie, and the kernel ends pid 1 only after every other process in its namespace.
 */
export function sandboxGone(child: ChildProcess): boolean {
  for (const inner of killed.get(child) ?? []) {
    const now = stateOf(inner.pid)
    if (now !== undefined && now.start === inner.start && now.state !== 'Z') return false
  }
  return true
}

/**
 * Kills a sandbox started by {@link spawnSandboxed} and everything in it, whenever it is called.
 * bubblewrap's sandbox process (pid 1 of the sandbox's PID namespace, a direct child of the
 * process we started) leaves our process group (`--new-session`) before it sets its
 * parent-death signal (`--die-with-parent`), so killing the group alone can miss it. The group
 * is stopped first: bubblewrap can then neither start nor reap a child, so the children listed
 * are all there are and their pids cannot be reused. Killing pid 1 kills its whole namespace.
 */
export function endSandbox(child: ChildProcess): void {
  const pid = child.pid
  // Once Node has reaped bubblewrap, its pid (and so a group of that id) may already be another
  // process's: nothing is sent.
  if (pid === undefined || child.exitCode !== null || child.signalCode !== null) return
  try {
    if (send(-pid, 'SIGSTOP')) {
      const inner = childrenOf(pid)
      killed.set(child, [...(killed.get(child) ?? []), ...inner.flatMap(started)])
      for (const innerPid of inner) send(innerPid, 'SIGKILL')
    }
  } finally {
    // Never leave the group stopped.
    send(-pid, 'SIGKILL')
  }
}

// Signals whose default action does not end bubblewrap: passed on to it alone, as given.
const SURVIVED = new Set<string>([
  'SIGCHLD',
  'SIGCONT',
  'SIGSTOP',
  'SIGTSTP',
  'SIGTTIN',
  'SIGTTOU',
  'SIGURG',
  'SIGWINCH',
])

function signalName(signal: NodeJS.Signals | number | undefined): string | number {
  if (signal === undefined) return 'SIGTERM'
  if (typeof signal === 'string') return signal
  const named = Object.entries(constants.signals).find(([, number]) => number === signal)
  return named?.[0] ?? signal
}

/**
 * Makes `child.kill(signal)` end the whole sandbox when the signal would end bubblewrap, as
 * `--die-with-parent` intends but cannot guarantee while bubblewrap sets the sandbox up.
 */
export function killsWholeSandbox(child: ChildProcess): void {
  const signalLeader = child.kill.bind(child)
  child.kill = (signal?: NodeJS.Signals | number): boolean => {
    const name = signalName(signal)
    if (typeof name !== 'string' || !(name in constants.signals) || SURVIVED.has(name))
      return signalLeader(signal)
    if (child.exitCode !== null || child.signalCode !== null) return false
    endSandbox(child)
    // Already killed with its group: this only marks the child `killed`, as Node's own kill does.
    signalLeader('SIGKILL')
    return true
  }
}
