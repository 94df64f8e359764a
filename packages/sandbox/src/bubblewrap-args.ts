import { lstatSync, readlinkSync, realpathSync, type Stats } from 'node:fs'
import { posix } from 'node:path'
import { isWithin } from '@plan/core/adapter'
import { realOrSelf } from '@plan/tools'
import { protectionMounts } from './protection-mounts.js'
import type { SandboxConfig } from './sandbox-config.js'
import { SandboxError } from './sandbox-error.js'
import { syntheticEtcFiles } from './system-files.js'
import { scanWorkspace, type WorkspaceScan } from './workspace-scan.js'

/** One command to start inside the sandbox. */
export interface SandboxLaunch {
  readonly argv: readonly string[]
  /** Real working folder, inside a workspace root. */
  readonly cwd: string
  /** Variables set by the caller for this command. */
  readonly env?: Readonly<Record<string, string>>
  /** Network: a Unix socket of the filtering proxy to show inside, or none at all. */
  readonly proxySocket?: string
  /**
   * Forbid new user namespaces inside (`--disable-userns`, bubblewrap 0.8+), so a command
   * cannot gain capabilities over namespaces of its own and reach the kernel code behind them.
   */
  readonly disableUserns?: boolean
  /** A file descriptor bubblewrap reads a seccomp program from (`--seccomp`), if any. */
  readonly seccompFd?: number
  /** A file descriptor bubblewrap writes its JSON status to (`--json-status-fd`), if any. */
  readonly statusFd?: number
  /** What the workspace holds to protect; scanned here when absent. */
  readonly scan?: WorkspaceScan
  /** Stand-ins in place of missing protected paths, bound read-only (see `leaseStandIns`). */
  readonly standIns?: readonly string[]
  /** Size of the private `/tmp` in bytes (`--size`, bubblewrap 0.7+); the kernel's default if absent. */
  readonly tmpBytes?: number
}

/** Where the proxy socket appears inside the sandbox. */
export const PROXY_SOCKET = '/tmp/.plan-sandbox/proxy.sock'

function inspect(path: string): { real: string; stats: Stats } | undefined {
  try {
    const real = realpathSync.native(path)
    return { real, stats: lstatSync(real) }
  } catch {
    return undefined
  }
}

function mountReadable(folder: string, args: string[]): void {
  let stats: Stats
  try {
    stats = lstatSync(folder)
  } catch {
    return
  }
  // Merged-/usr systems link /bin to usr/bin, and /etc/localtime is a link into /usr/share: keep
  // the link (its target is visible or absent) instead of a second mount.
  if (stats.isSymbolicLink() && realOrSelf(posix.dirname(folder)) === posix.dirname(folder)) {
    args.push('--symlink', readlinkSync(folder), folder)
    return
  }
  const found = inspect(folder)
  if (found !== undefined) args.push('--ro-bind', found.real, found.real)
}

function environment(config: SandboxConfig, launch: SandboxLaunch): Record<string, string> {
  const proxy = launch.proxySocket === undefined ? {} : proxyEnv()
  return {
    ...config.env,
    ...launch.env,
    ...proxy,
    HOME: config.home,
    TMPDIR: config.tmp,
    XDG_CONFIG_HOME: posix.join(config.home, '.config'),
    XDG_CACHE_HOME: posix.join(config.home, '.cache'),
    XDG_DATA_HOME: posix.join(config.home, '.local/share'),
    XDG_STATE_HOME: posix.join(config.home, '.local/state'),
  }
}

function proxyEnv(): Record<string, string> {
  const url = 'http://127.0.0.1:3128'
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    ALL_PROXY: url,
    all_proxy: url,
    NO_PROXY: '',
    no_proxy: '',
  }
}

/**
 * The bubblewrap arguments that run one command under a config: new user, PID, IPC, UTS and
 * network namespaces with every capability dropped (and, when asked, no nested user namespace
 * and a seccomp filter); a fresh `/tmp` and `/dev`, a fresh read-only `/proc`; the
 * host's system folders and the `/etc` files programs need read-only, a `passwd` and `group` of
 * its own, the rest of the root read-only; the workspace roots writable; `readOnly` paths and
 * the code-running parts of every git repository bound read-only again, `deny` paths and
 * credential stores masked, host sockets covered, all of them by identity (see
 * {@link protectionMounts}); a private HOME and TMPDIR; and
 * only the allow-listed environment.
 */
export function bubblewrapArgs(config: SandboxConfig, launch: SandboxLaunch): string[] {
  for (const root of config.writable) {
    if (isWithin(root, config.home) || isWithin(root, '/tmp/.plan-sandbox')) {
      throw new SandboxError({
        code: 'sandbox_failed',
        message: `The workspace root ${root} contains the sandbox's private HOME.`,
        path: ['workspace', 'roots'],
        hint: 'Use a workspace root below /tmp or elsewhere, not / or /tmp itself.',
      })
    }
  }
  if (!config.writable.some((root) => isWithin(root, launch.cwd))) {
    throw new SandboxError({
      code: 'path_outside_workspace',
      message: `The working folder ${launch.cwd} is outside the workspace.`,
      path: ['cwd'],
    })
  }
  const args = ['--die-with-parent', '--new-session', '--unshare-user', '--unshare-pid']
  if (launch.disableUserns === true) args.push('--disable-userns')
  args.push('--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try', '--unshare-net')
  args.push('--cap-drop', 'ALL', '--clearenv')
  // The kernel's own files (/proc/sys, /proc/sysrq-trigger, …) check only that the writer is
  // root of the host, which a sandbox run by root is: the whole of /proc stays read-only.
  args.push('--proc', '/proc', '--remount-ro', '/proc', '--dev', '/dev')
  // /dev/shm is memory too: the same size as /tmp, each on its own.
  if (launch.tmpBytes !== undefined)
    args.push('--size', String(launch.tmpBytes), '--tmpfs', '/dev/shm')
  if (launch.tmpBytes !== undefined) args.push('--size', String(launch.tmpBytes))
  args.push('--tmpfs', '/tmp')
  for (const folder of config.readable) mountReadable(folder, args)
  for (const [inside, host] of Object.entries(syntheticEtcFiles(config.home)))
    args.push('--ro-bind', host, inside)
  for (const root of config.writable) args.push('--bind', root, root)
  const visible = [...config.readable.map((folder) => inspect(folder)?.real ?? folder)]
  visible.push(...config.writable)
  args.push(
    ...protectionMounts(
      config,
      launch.scan ?? scanWorkspace(config.writable, config.deny),
      visible,
      launch.standIns,
    ),
  )
  args.push('--dir', config.home, '--dir', config.tmp)
  if (launch.proxySocket !== undefined) args.push('--ro-bind', launch.proxySocket, PROXY_SOCKET)
  // Nothing but the mounts above is writable: the root itself (and so /etc) stays read-only.
  args.push('--remount-ro', '/')
  if (launch.seccompFd !== undefined) args.push('--seccomp', String(launch.seccompFd))
  if (launch.statusFd !== undefined) args.push('--json-status-fd', String(launch.statusFd))
  for (const [name, value] of Object.entries(environment(config, launch)))
    args.push('--setenv', name, value)
  args.push('--chdir', launch.cwd, '--', ...launch.argv)
  return args
}
