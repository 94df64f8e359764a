import { type ChildProcessWithoutNullStreams, type IOType, spawn } from 'node:child_process'
import { existsSync, realpathSync } from 'node:fs'
import type { Readable, Writable } from 'node:stream'
import type { CommandViolation } from '@plan/tools'
import { bubblewrapArgs, PROXY_SOCKET } from './bubblewrap-args.js'
import { bubblewrapFeatures } from './bubblewrap-features.js'
import { watchStatus } from './bubblewrap-status.js'
import { withoutInheritedDescriptors } from './descriptor-closer.js'
import { type DiskWatch, watchDisk } from './disk-quota.js'
import { endSandbox, killsWholeSandbox, sandboxGone } from './end-sandbox.js'
import { limitViolation } from './limit-violations.js'
import { type NetworkProxy, startNetworkProxy } from './network-proxy.js'
import { processLimitEnforced } from './process-limit-probe.js'
import { createProcessQuota, joiningQuota, type ProcessQuota } from './process-quota.js'
import type { SandboxConfig } from './sandbox-config.js'
import { SandboxError } from './sandbox-error.js'
import {
  checkLimits,
  DEFAULT_LIMITS,
  DEFAULT_PROCESS_QUOTA,
  effectiveLimits,
  prlimitOptions,
  type SandboxLimits,
} from './sandbox-limits.js'
import { isSeccompArch, seccompFilter } from './seccomp-filter.js'
import { leaseStandIns, liveStandIns, type StandInLease } from './stand-in-lease.js'
import { warnOnce } from './warn-once.js'
import { checkWorkspace, snapshotWorkspace } from './workspace-check.js'
import { scanWorkspace } from './workspace-scan.js'

/** How one sandboxed process starts. */
export interface SandboxSpawnOptions {
  /** Working folder inside the workspace. Default: the first workspace root. */
  readonly cwd?: string
  /** Variables set for this command, after the sandbox's allow-listed environment. */
  readonly env?: Readonly<Record<string, string>>
  /**
   * Resource limits of this command, over the sandbox's; a limit the policy sets can only be
   * lowered. Ignored with `sandbox: 'none'`.
   */
  readonly limits?: SandboxLimits
}

/** A started process with the proxy (if any) that serves it and the limits it runs under. */
export interface SandboxedChild {
  readonly child: ChildProcessWithoutNullStreams
  readonly proxy: NetworkProxy | undefined
  readonly limits: SandboxLimits
  /**
   * After the process closed: whether bubblewrap reported that the command itself ran, read
   * from a descriptor the command cannot write to. Absent without such a report (a bubblewrap
   * without `--json-status-fd`, or no sandbox).
   */
  readonly commandRan?: () => boolean
  /** Kills the process and everything it started; without it, its process group is killed. */
  readonly end?: () => void
  /**
   * After the process closed: checks the workspace (and undoes what it can) for what the
   * command did to protected paths; see {@link checkWorkspace}.
   */
  readonly afterCommand?: () => CommandViolation[]
}

/**
 * The programs a sandboxed command starts through: `prlimit` execs `bwrap`; `bash`, when found,
 * comes first to close the descriptors this process would otherwise pass on.
 */
export interface SandboxPrograms {
  readonly bwrap: string
  readonly prlimit: string
  readonly bash?: string
}

/** Inside the sandbox, forward 127.0.0.1:3128 to the proxy socket, wait for it, then exec. */
const FORWARD = [
  `socat TCP-LISTEN:3128,bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${PROXY_SOCKET} >/dev/null 2>&1 &`,
  'i=0; while [ $i -lt 500 ] && ! grep -q ":0C38 " /proc/net/tcp; do i=$((i+1)); sleep 0.01; done',
  'exec "$@"',
].join('\n')

// bubblewrap reads the seccomp program, when there is one, from the child's descriptor 3 and
// writes its JSON status to the next: no slot is left 'ignore', which passes on what the host holds there.
const SECCOMP_FD = 3

// Built at the first sandboxed command, then handed to every later one.
let builtFilter: Buffer | undefined

/** The seccomp program for this machine, or undefined (warned once) where none can be built. */
function machineFilter(): Buffer | undefined {
  if (builtFilter !== undefined) return builtFilter
  if (isSeccompArch(process.arch)) {
    builtFilter = seccompFilter(process.arch)
    return builtFilter
  }
  warnOnce(
    'PLAN_SANDBOX_SECCOMP',
    `@plan/sandbox has no seccomp filter for ${process.arch}: sandboxed commands can make any system call.`,
  )
  return undefined
}

/** Whether to pass `--disable-userns`; warns once when this bubblewrap is too old for it. */
function disablesUserns(bwrap: string): boolean {
  if (bubblewrapFeatures(bwrap).disableUserns) return true
  warnOnce(
    'PLAN_SANDBOX_USERNS',
    `${bwrap} has no --disable-userns (bubblewrap 0.8 or later): sandboxed commands can create user namespaces of their own.`,
  )
  return false
}

/** The limits of one command and its process quota, refused when neither would be enforced. */
function commandLimits(
  programs: SandboxPrograms,
  config: SandboxConfig,
  options: SandboxSpawnOptions,
): { limits: SandboxLimits; quota: ProcessQuota | undefined } {
  checkLimits(options.limits, ['limits'])
  const limits = effectiveLimits(config.policyLimits, config.limits, options.limits)
  const quota = createProcessQuota(limits.processes ?? DEFAULT_PROCESS_QUOTA)
  if (quota === undefined && limits.processes === undefined)
    warnOnce(
      'PLAN_SANDBOX_PIDS',
      '@plan/sandbox cannot create a pids cgroup here (no cgroup v1 pids hierarchy or delegated cgroup v2 it may write): sandboxed commands have no process quota.',
    )
  if (
    quota === undefined &&
    limits.processes !== undefined &&
    !processLimitEnforced(programs.prlimit, process.env.PATH ?? '/usr/bin:/bin')
  ) {
    throw new SandboxError({
      code: 'sandbox_unavailable',
      message:
        'The processes limit cannot be enforced here: no pids cgroup can be created, and the kernel does not count the processes of root (uid 0 of the host) or of a process with CAP_SYS_RESOURCE against RLIMIT_NPROC, or the check (coreutils timeout under prlimit) could not run.',
      path: ['limits', 'processes'],
      hint: 'Give the agent a cgroup it may write (a container with a writable cgroup, systemd-run --user --scope -p Delegate=yes), run it as an ordinary (ideally dedicated) user, or drop the processes limit and rely on the timeout.',
    })
  }
  if (limits.tmpBytes !== undefined && !bubblewrapFeatures(programs.bwrap).tmpfsSize) {
    if (limits.tmpBytes === DEFAULT_LIMITS.tmpBytes) {
      warnOnce(
        'PLAN_SANDBOX_TMP_SIZE',
        `${programs.bwrap} cannot size a tmpfs (--size, bubblewrap 0.7 or later): the private /tmp of sandboxed commands is not bounded.`,
      )
      const { tmpBytes: _unbounded, ...rest } = limits
      return { limits: rest, quota }
    }
    quota?.close()
    throw new SandboxError({
      code: 'sandbox_unavailable',
      message: `${programs.bwrap} cannot size a tmpfs (--size, bubblewrap 0.7 or later), so the tmpBytes limit cannot be set.`,
      path: ['limits', 'tmpBytes'],
      hint: 'Install bubblewrap 0.7 or later, or drop the tmpBytes limit.',
    })
  }
  return { limits, quota }
}

/**
 * Starts bubblewrap under `prlimit` (the limits then hold for bubblewrap and everything it
 * starts) with piped stdio and no other descriptor, hands it the seccomp program on its own pipe
 * and, when asked, takes its status on the next.
 */
function startBubblewrap(
  programs: SandboxPrograms,
  limits: SandboxLimits,
  quota: ProcessQuota | undefined,
  args: readonly string[],
  pipes: { readonly filter: Buffer | undefined; readonly status: boolean },
): ChildProcessWithoutNullStreams {
  const stdio: IOType[] = ['pipe', 'pipe', 'pipe']
  if (pipes.filter !== undefined) stdio.push('pipe')
  if (pipes.status) stdio.push('pipe')
  // With a pids cgroup, the quota is the cgroup's: RLIMIT_NPROC would count the user's processes.
  const rlimits = quota === undefined ? limits : { ...limits, processes: undefined }
  const [program, ...wrapped] = joiningQuota(
    withoutInheritedDescriptors(
      [programs.prlimit, ...prlimitOptions(rlimits), '--', programs.bwrap, ...args],
      stdio.length,
      programs.bash,
    ),
    quota,
    existsSync('/bin/sh') ? '/bin/sh' : (programs.bash ?? '/bin/sh'),
  )
  const child = spawn(program, wrapped, {
    env: {},
    shell: false,
    detached: true,
    stdio,
    windowsHide: true,
  }) as ChildProcessWithoutNullStreams
  if (pipes.filter === undefined) return child
  const seccomp = child.stdio[SECCOMP_FD] as Writable
  // A bubblewrap that fails before reading it closes the pipe: its exit says why.
  seccomp.on('error', () => {})
  seccomp.end(pipes.filter)
  return child
}

/** Starts `argv` under bubblewrap with piped stdio, the proxy started first when hosts are listed. */
export function spawnSandboxed(
  programs: SandboxPrograms,
  config: SandboxConfig,
  argv: readonly string[],
  options: SandboxSpawnOptions,
): SandboxedChild {
  if (argv.length === 0 || argv[0] === undefined || argv[0].length === 0) {
    throw new SandboxError({ code: 'invalid_arguments', message: 'argv is empty.', path: ['argv'] })
  }
  const first = config.writable[0] as string
  let cwd: string
  try {
    cwd = realpathSync.native(options.cwd ?? first)
  } catch (error) {
    throw new SandboxError(
      {
        code: 'path_invalid',
        message: `The working folder ${options.cwd} does not exist.`,
        path: ['cwd'],
      },
      { cause: error },
    )
  }
  const { limits, quota } = commandLimits(programs, config, options)
  const proxy =
    config.network.allow.length > 0 ? startNetworkProxy(config.network.allow) : undefined
  const command = proxy === undefined ? argv : ['/bin/sh', '-c', FORWARD, 'sh', ...argv]
  const filter = machineFilter()
  const status = bubblewrapFeatures(programs.bwrap).jsonStatus
  const statusFd = filter === undefined ? SECCOMP_FD : SECCOMP_FD + 1
  const scan = scanWorkspace(config.writable, config.deny)
  const snapshot = snapshotWorkspace(config, scan)
  let standIns: StandInLease | undefined
  try {
    standIns = leaseStandIns(config, scan)
    const args = bubblewrapArgs(config, {
      argv: command,
      cwd,
      scan,
      standIns: standIns.paths,
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(proxy === undefined ? {} : { proxySocket: proxy.socket }),
      disableUserns: disablesUserns(programs.bwrap),
      ...(filter === undefined ? {} : { seccompFd: SECCOMP_FD }),
      ...(status ? { statusFd } : {}),
      ...(limits.tmpBytes === undefined ? {} : { tmpBytes: limits.tmpBytes }),
    })
    const child = startBubblewrap(programs, limits, quota, args, { filter, status })
    const held = standIns
    if (child.pid !== undefined) held.attach(child.pid)
    killsWholeSandbox(child)
    const end = () => endSandbox(child)
    const disk =
      limits.diskBytes === undefined ? undefined : watchDisk(config.writable, limits.diskBytes, end)
    const release = () => {
      proxy?.close()
      quota?.close()
      releaseWhenGone(child, held)
    }
    child.on('close', release)
    child.on('error', release)
    const afterCommand = () => {
      release()
      return [
        ...quotaViolations(limits, quota, disk),
        ...checkWorkspace(config, snapshot, config.deny, liveStandIns()),
      ]
    }
    if (!status) return { child, proxy, limits, end, afterCommand }
    const commandRan = watchStatus(child.stdio[statusFd] as Readable)
    return { child, proxy, limits, end, commandRan, afterCommand }
  } catch (error) {
    proxy?.close()
    quota?.close()
    standIns?.release()
    throw error
  }
}

// The sandboxes whose stand-ins are let go already, or will be once they are gone.
const lettingGo = new WeakSet<ChildProcessWithoutNullStreams>()

/**
 * Lets a command's stand-ins go once no process of its sandbox is left (at once after an
 * ordinary exit; after a kill, when pid 1 of its namespace is gone), so that none can create a
 * protected name in the moment its stand-in leaves.
 */
function releaseWhenGone(child: ChildProcessWithoutNullStreams, lease: StandInLease): void {
  if (lettingGo.has(child)) return
  lettingGo.add(child)
  const pause = new Int32Array(new SharedArrayBuffer(4))
  for (let waited = 0; waited < 1000 && !sandboxGone(child); waited += 1)
    Atomics.wait(pause, 0, 0, 1)
  if (sandboxGone(child)) {
    lease.release()
    return
  }
  const retry = setInterval(() => {
    if (!sandboxGone(child)) return
    clearInterval(retry)
    lease.release()
  }, 50)
  retry.unref()
}

/** The whole-sandbox quotas the command reached: the pids cgroup's, the disk watcher's. */
function quotaViolations(
  limits: SandboxLimits,
  quota: ProcessQuota | undefined,
  disk: DiskWatch | undefined,
): CommandViolation[] {
  const found: CommandViolation[] = []
  if (quota?.reached() === true)
    found.push(
      limitViolation(
        'processes',
        { ...limits, processes: quota.max },
        'a fork was refused at the quota',
      ),
    )
  if (disk?.stop() === true)
    found.push(limitViolation('diskBytes', limits, 'the sandbox was killed'))
  return found
}
