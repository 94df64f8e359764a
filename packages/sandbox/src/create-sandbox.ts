import { type ChildProcessWithoutNullStreams, spawn as spawnProcess } from 'node:child_process'
import { posix } from 'node:path'
import type { PlanCompiler, PlanIssue, PolicyInput, ResolvedPolicy } from '@plan/core'
import { resolvePolicy } from '@plan/core/schemas'
import type { CommandRunResult } from '@plan/tools'
import { findProgram } from './find-program.js'
import { collectSandboxed } from './run-sandboxed.js'
import { createSandboxConfig, type SandboxConfig, type SandboxOptions } from './sandbox-config.js'
import { SandboxError } from './sandbox-error.js'
import {
  type SandboxedChild,
  type SandboxPrograms,
  type SandboxSpawnOptions,
  spawnSandboxed,
} from './spawn-sandboxed.js'
import { warnOnce } from './warn-once.js'

/** Options of one `run`. */
export interface SandboxRunOptions extends SandboxSpawnOptions {
  /** Time limit in milliseconds; the whole sandbox is killed after it. */
  readonly timeoutMs?: number
  /** Most bytes kept of stdout and of stderr each; the sandbox is killed past it. */
  readonly maxOutputBytes?: number
  /** Written to the program's stdin, which is then closed. Default: closed at once. */
  readonly stdin?: string | Uint8Array
  /** Kills the sandbox when it aborts. */
  readonly signal?: AbortSignal
}

/** What `run` resolves to; a non-zero exit is a result, not an error. */
export type SandboxRunResult = CommandRunResult

/** A sandbox derived from one policy. */
export interface Sandbox {
  /** Runs `argv` (no shell) inside the sandbox and collects its output. */
  run(argv: readonly string[], options?: SandboxRunOptions): Promise<SandboxRunResult>
  /**
   * Starts `argv` inside the sandbox with piped stdio, e.g. a local MCP server. Under bubblewrap
   * its `kill()` kills every process of the sandbox, unless the signal is one bubblewrap survives
   * (0, SIGCHLD, SIGCONT, SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU, SIGURG, SIGWINCH): that one reaches
   * bubblewrap alone.
   */
  spawn(argv: readonly string[], options?: SandboxSpawnOptions): ChildProcessWithoutNullStreams
  /** What the sandbox allows, derived from the policy. */
  readonly config: SandboxConfig
}

function isCompiler(value: unknown): value is PlanCompiler {
  return typeof value === 'object' && value !== null && 'compile' in value && 'policy' in value
}

/**
 * Finds bubblewrap and prlimit (and socat when hosts are listed), or throws what is missing
 * and how to install it; and bash, needed only to close inherited descriptors.
 */
function locate(config: SandboxConfig, options: SandboxOptions): SandboxPrograms {
  if (process.platform !== 'linux') {
    throw new SandboxError({
      code: 'sandbox_unavailable',
      message: `@plan/sandbox runs commands under bubblewrap, which needs Linux; this is ${process.platform}.`,
      path: [],
      hint: "Run the agent's commands on Linux, or pass sandbox: 'none' to run them without an OS sandbox.",
    })
  }
  const searchPath = process.env.PATH ?? '/usr/bin:/bin'
  const wanted = options.bwrap ?? 'bwrap'
  const bwrap = wanted.includes('/')
    ? findProgram(posix.basename(wanted), posix.dirname(wanted))
    : findProgram(wanted, searchPath)
  const prlimit = findProgram('prlimit', searchPath)
  const missing = [
    ...(bwrap === undefined ? [`bubblewrap (${wanted})`] : []),
    ...(prlimit === undefined ? ['prlimit (util-linux, sets the resource limits)'] : []),
    ...(config.network.allow.length > 0 && findProgram('socat', config.env.PATH ?? '') === undefined
      ? ['socat']
      : []),
  ]
  if (bwrap === undefined || prlimit === undefined || missing.length > 0) {
    throw new SandboxError({
      code: 'sandbox_unavailable',
      message: `The sandbox cannot start: ${missing.join(' and ')} not found.`,
      path: [],
      hint: "Install it: apt-get install -y bubblewrap socat util-linux (Debian, Ubuntu), dnf install -y bubblewrap socat util-linux (Fedora). Only sandbox: 'none' runs commands without it.",
    })
  }
  const bash = findProgram('bash', searchPath)
  return bash === undefined ? { bwrap, prlimit } : { bwrap, prlimit, bash }
}

/** Whether the sandbox can start here: the programs it needs, or why it cannot. */
export type SandboxAvailability =
  | { readonly available: true; readonly bwrap: string; readonly prlimit: string }
  | { readonly available: false; readonly issue: PlanIssue }

/**
 * Checks whether commands can run in the sandbox on this machine (Linux with bubblewrap, and
 * socat when the policy lists hosts), without starting anything.
 *
 * @example
 * ```ts
 * const check = checkSandbox()
 * if (!check.available) console.error(check.issue.message, check.issue.hint)
 * ```
 */
export function checkSandbox(
  policy: PolicyInput | ResolvedPolicy | PlanCompiler = {
    version: 1,
    workspace: { roots: ['/'] },
    tools: {},
  },
  options: SandboxOptions = {},
): SandboxAvailability {
  const resolved = isCompiler(policy) ? policy.policy : resolvePolicy(policy)
  try {
    const { bwrap, prlimit } = locate(createSandboxConfig(resolved, options), options)
    return { available: true, bwrap, prlimit }
  } catch (error) {
    if (!SandboxError.isInstance(error)) throw error
    return { available: false, issue: error.issues[0] as PlanIssue }
  }
}

function spawnUnsandboxed(
  config: SandboxConfig,
  argv: readonly string[],
  options: SandboxSpawnOptions,
): SandboxedChild {
  warnOnce(
    'PLAN_SANDBOX_NONE',
    "@plan/sandbox runs commands WITHOUT an OS sandbox (sandbox: 'none').",
  )
  const [program, ...rest] = argv
  if (program === undefined)
    throw new SandboxError({ code: 'invalid_arguments', message: 'argv is empty.', path: ['argv'] })
  const child = spawnProcess(program, rest, {
    cwd: options.cwd ?? config.writable[0],
    env: { ...config.env, ...options.env },
    shell: false,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  return { child, proxy: undefined, limits: {} }
}

/**
 * Creates a sandbox from a policy (an object, a resolved policy, or a compiler): commands may
 * write only inside the workspace roots, never under `readOnly` or `deny`; cannot read `deny`
 * paths, the host's credential stores, or anything of the host outside its system folders;
 * reach no network unless `sandbox.network.allow` lists hosts; and start with a private HOME
 * and TMPDIR and an allow-listed environment; and run under resource limits (the policy's
 * `sandbox.limits`, `options.limits`, a run's `limits`; 1 GiB per file and 4096 open files by
 * default). It fails closed: when bubblewrap or prlimit is missing or cannot start, or a limit
 * cannot be enforced, `run` rejects and `spawn` throws a {@link SandboxError}; only
 * `sandbox: 'none'` runs without it.
 *
 * @example
 * ```ts
 * const sandbox = createSandbox(compiler, { limits: { cpuSeconds: 60 } })
 * const { exitCode, stdout, violations } = await sandbox.run(['git', 'status'])
 * const server = sandbox.spawn(['node', 'mcp-server.js'], { cwd: '/srv/repo' })
 * ```
 */
export function createSandbox(
  policy: PolicyInput | ResolvedPolicy | PlanCompiler,
  options: SandboxOptions = {},
): Sandbox {
  const resolved = isCompiler(policy) ? policy.policy : resolvePolicy(policy)
  const config = createSandboxConfig(resolved, options)
  let programs: SandboxPrograms | undefined
  const start = (argv: readonly string[], spawnOptions: SandboxSpawnOptions): SandboxedChild => {
    if (config.kind === 'none') return spawnUnsandboxed(config, argv, spawnOptions)
    programs ??= locate(config, options)
    return spawnSandboxed(programs, config, argv, spawnOptions)
  }
  return {
    config,
    spawn: (argv, spawnOptions = {}) => {
      const started = start(argv, spawnOptions)
      started.child.once('close', () => started.afterCommand?.())
      return started.child
    },
    async run(argv, runOptions = {}) {
      const started = start(argv, runOptions)
      return await collectSandboxed(started, {
        timeoutMs: runOptions.timeoutMs ?? options.timeoutMs ?? 60_000,
        maxOutputBytes: runOptions.maxOutputBytes ?? options.maxOutputBytes ?? 1024 * 1024,
        ...(runOptions.stdin === undefined ? {} : { stdin: runOptions.stdin }),
        ...(runOptions.signal === undefined ? {} : { signal: runOptions.signal }),
      })
    },
  }
}
