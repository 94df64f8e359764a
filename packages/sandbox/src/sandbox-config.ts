import { homedir } from 'node:os'
import { posix } from 'node:path'
import type { ResolvedPolicy } from '@plan/core'
import { isWithin } from '@plan/core/adapter'
import { realOrSelf, safeSearchPath } from '@plan/tools'
import { credentialPaths } from './credential-paths.js'
import { checkLimits, effectiveLimits, type SandboxLimits } from './sandbox-limits.js'
import { SYSTEM_FOLDERS, systemEtc } from './system-files.js'
import { toolFolders } from './tool-folders.js'

/** Options of {@link createSandbox}. */
export interface SandboxOptions {
  /**
   * `'bubblewrap'` (the default) runs every command inside bubblewrap and fails closed when it
   * cannot; `'none'` runs commands without any OS sandbox, with a warning.
   */
  readonly sandbox?: 'bubblewrap' | 'none'
  /** The bubblewrap program, a name looked up in PATH or an absolute path. Default `bwrap`. */
  readonly bwrap?: string
  /** The host's home folder, whose credential stores are hidden. Default `os.homedir()`. */
  readonly hostHome?: string
  /** The PATH commands are looked up in. Default this process's PATH minus workspace entries. */
  readonly path?: string
  /** More folders the command may read (never write), e.g. a toolchain outside `/usr`. */
  readonly readPaths?: readonly string[]
  /** More paths hidden from the command, beyond the policy's `deny` and the credential stores. */
  readonly deny?: readonly string[]
  /** Environment variables set for every command (after the allow-list). */
  readonly env?: Readonly<Record<string, string>>
  /** Default time limit of `run`, in milliseconds. Default 60 s. */
  readonly timeoutMs?: number
  /** Default cap of `run`'s stdout and stderr, each, in bytes. Default 1 MiB. */
  readonly maxOutputBytes?: number
  /**
   * Resource limits of every command, over the defaults (`fileSizeBytes` 1 GiB, `openFiles`
   * 4096); a limit the policy's `sandbox.limits` sets can only be lowered here.
   */
  readonly limits?: SandboxLimits
}

/** What the sandbox lets a command do, derived from the policy. */
export interface SandboxConfig {
  readonly kind: 'bubblewrap' | 'none'
  /** Folders the command may write: the workspace roots. */
  readonly writable: readonly string[]
  /** Paths inside them that stay read-only (`workspace.readOnly`, `.git` by default). */
  readonly readOnly: readonly string[]
  /** Paths the command can neither read nor write: `workspace.deny` and credential stores. */
  readonly deny: readonly string[]
  /**
   * The credential stores of the host home among `deny`: masked where they exist; where they do
   * not (a workspace that holds the home folder), removed after a command that created one.
   */
  readonly credentials: readonly string[]
  /**
   * Read-only host paths that are visible at all: the system folders, the `/etc` files programs
   * need, the `PATH` entries' bin folders and programs, and `readPaths`.
   */
  readonly readable: readonly string[]
  /** Hosts the command may reach through the sandbox's proxy; none means no network. */
  readonly network: { readonly allow: readonly string[] }
  /** The environment every command starts from (HOME and TMPDIR are added per command). */
  readonly env: Readonly<Record<string, string>>
  /** HOME inside the sandbox: a fresh empty folder outside the workspace for each command. */
  readonly home: string
  /** TMPDIR inside the sandbox: a fresh empty folder, private to the command. */
  readonly tmp: string
  /** Resource limits of every command: the defaults, the policy's and the options' together. */
  readonly limits: SandboxLimits
  /** The policy's `sandbox.limits`: ceilings that a run's own limits cannot raise. */
  readonly policyLimits: SandboxLimits
}

/** Host variables copied into a command's environment when set. */
export const BASE_ENV: readonly string[] = ['LANG', 'LC_ALL', 'LC_CTYPE', 'TERM', 'TZ']

/** Derives what a command may do from a resolved policy and the sandbox options. */
export function createSandboxConfig(
  policy: ResolvedPolicy,
  options: SandboxOptions = {},
): SandboxConfig {
  const roots = [...new Set(policy.scope.roots.map(realOrSelf))]
  // A root given through a link: its entries under the real root, where the sandbox binds it.
  const onRealRoot = (entry: string): string => {
    const root = policy.scope.roots.find((candidate) => isWithin(candidate, entry))
    return root === undefined ? entry : posix.join(realOrSelf(root), posix.relative(root, entry))
  }
  const hostHome = options.hostHome ?? homedir()
  const path = safeSearchPath(options.path ?? process.env.PATH ?? '/usr/bin:/bin', roots)
  const system = SYSTEM_FOLDERS.filter((folder) => !roots.some((root) => isWithin(root, folder)))
  const tools = path
    .split(':')
    .filter((entry) => !system.some((folder) => isWithin(folder, realOrSelf(entry))))
    .flatMap((entry) => toolFolders(entry, system, hostHome))
  const etc = systemEtc().filter((file) => !roots.some((root) => isWithin(root, file)))
  const env: Record<string, string> = { PATH: path }
  for (const name of [...BASE_ENV, ...(policy.policy.sandbox?.env ?? [])]) {
    const value = process.env[name]
    if (value !== undefined && name !== 'PATH') env[name] = value
  }
  checkLimits(options.limits, ['limits'])
  const credentials = credentialPaths(hostHome)
  const policyLimits = policy.policy.sandbox?.limits ?? {}
  return Object.freeze({
    kind: options.sandbox ?? 'bubblewrap',
    writable: roots,
    readOnly: policy.scope.readOnly.map(onRealRoot),
    deny: [...policy.scope.deny.map(onRealRoot), ...(options.deny ?? []), ...credentials],
    credentials,
    readable: [
      ...new Set([
        ...system,
        ...etc,
        ...tools,
        ...(policy.policy.sandbox?.read ?? []),
        ...(options.readPaths ?? []),
      ]),
    ],
    network: { allow: policy.policy.sandbox?.network.allow ?? [] },
    env: { ...env, ...options.env },
    home: '/tmp/.plan-sandbox/home',
    tmp: '/tmp/.plan-sandbox/tmp',
    limits: Object.freeze(effectiveLimits(policyLimits, options.limits, undefined)),
    policyLimits,
  })
}
