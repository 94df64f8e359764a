import { readFileSync } from 'node:fs'
import { sandboxLimitsSchema } from '@plan/core/schemas'
import { SandboxError } from './sandbox-error.js'

/**
 * Resource limits of a sandboxed command: `setrlimit` limits, each holding for every process of
 * the command on its own (a tree of ten processes may use ten times `cpuSeconds`) except
 * `processes`, which counts the whole sandbox (or, without a cgroup, the user); the size of its
 * private `/tmp`; and the bytes it may add to the workspace.
 */
export interface SandboxLimits {
  /** CPU seconds of each process (`RLIMIT_CPU`): SIGXCPU at the limit, SIGKILL a second later. */
  readonly cpuSeconds?: number
  /** Largest file a process may write, in bytes (`RLIMIT_FSIZE`): SIGXFSZ, or EFBIG past it. */
  readonly fileSizeBytes?: number
  /** Most open files of each process (`RLIMIT_NOFILE`): EMFILE past it. */
  readonly openFiles?: number
  /**
   * Most processes and threads of the whole sandbox, root's too (a pids cgroup's `pids.max`):
   * `fork` fails with EAGAIN past it. Where this process cannot create a pids cgroup, the
   * limit is `RLIMIT_NPROC` instead, which counts the user's processes across the host and
   * which root escapes, so there the sandbox refuses to start with it.
   */
  readonly processes?: number
  /** Most private writable memory of each process, in bytes (`RLIMIT_DATA`): ENOMEM past it. */
  readonly memoryBytes?: number
  /**
   * Size of the command's private `/tmp` (its HOME and TMPDIR), which is held in memory, in
   * bytes: ENOSPC past it. Default the kernel's, half of the host's memory.
   */
  readonly tmpBytes?: number
  /**
   * Most bytes the whole sandbox may add to the file systems of the workspace roots, watched
   * while it runs: the sandbox is killed past it.
   */
  readonly diskBytes?: number
}

/** Names of the limits, in the order they are applied. */
export const LIMIT_NAMES = [
  'cpuSeconds',
  'fileSizeBytes',
  'openFiles',
  'processes',
  'memoryBytes',
  'tmpBytes',
  'diskBytes',
] as const satisfies readonly (keyof SandboxLimits & keyof typeof sandboxLimitsSchema.shape)[]

/**
 * Limits every sandboxed command gets unless the policy or the caller sets them: 1 GiB per
 * file, 4096 open files, 1 GiB of `/tmp` (and of `/dev/shm`), 8 GiB added to the workspace
 * (room for a large build's output, not for a disk-filling loop).
 */
export const DEFAULT_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  fileSizeBytes: 1024 ** 3,
  openFiles: 4096,
  tmpBytes: 1024 ** 3,
  diskBytes: 8 * 1024 ** 3,
})

/** The whole-sandbox process quota when neither the policy nor the caller sets `processes`. */
export const DEFAULT_PROCESS_QUOTA = 1024

/** The name of one limit. */
export type LimitName = (typeof LIMIT_NAMES)[number]

// The rows of /proc/self/limits and the prlimit options of each rlimit.
const RESOURCES: Readonly<
  Partial<Record<LimitName, { readonly row: string; readonly option: string }>>
> = {
  cpuSeconds: { row: 'Max cpu time', option: '--cpu' },
  fileSizeBytes: { row: 'Max file size', option: '--fsize' },
  openFiles: { row: 'Max open files', option: '--nofile' },
  processes: { row: 'Max processes', option: '--nproc' },
  memoryBytes: { row: 'Max data size', option: '--data' },
}

/** Throws `invalid_configuration` unless `limits` holds only known names with positive integers. */
export function checkLimits(limits: unknown, path: readonly (string | number)[]): void {
  if (limits === undefined) return
  // The policy's own schema: the limits a caller passes are held to the same rule.
  const checked = sandboxLimitsSchema.safeParse(limits)
  if (checked.success) return
  const issue = checked.error.issues[0]
  const fail = (message: string, at: readonly (string | number)[], hint?: string) =>
    new SandboxError({
      code: 'invalid_configuration',
      message,
      path: [...path, ...at],
      ...(hint === undefined ? {} : { hint }),
    })
  const name = issue?.code === 'unrecognized_keys' ? issue.keys[0] : issue?.path[0]
  if (typeof name !== 'string') throw fail('The sandbox limits are not an object.', [])
  if (issue?.code === 'unrecognized_keys')
    throw fail(
      `Unknown sandbox limit ${JSON.stringify(name)}.`,
      [name],
      `The limits are ${LIMIT_NAMES.join(', ')}.`,
    )
  const value = (limits as Record<string, unknown>)[name]
  throw fail(`The sandbox limit ${name} must be a positive integer, not ${String(value)}.`, [name])
}

/**
 * The limits one command runs under. The policy's limits are ceilings: the caller's (`run`
 * over `createSandbox`) replace a default or a missing limit, and may lower, never raise, one
 * the policy sets.
 */
export function effectiveLimits(
  policy: SandboxLimits | undefined,
  options: SandboxLimits | undefined,
  run: SandboxLimits | undefined,
): SandboxLimits {
  const limits: { -readonly [K in LimitName]?: number } = {}
  for (const name of LIMIT_NAMES) {
    const ceiling = policy?.[name]
    const asked = run?.[name] ?? options?.[name]
    const value =
      ceiling === undefined ? (asked ?? DEFAULT_LIMITS[name]) : Math.min(ceiling, asked ?? ceiling)
    if (value !== undefined) limits[name] = value
  }
  return limits
}

// Read once: a process can only lower its hard limits, and a cached one above that makes
// prlimit fail (a sandbox failure), never run a command with more than it may have.
let hardLimitsRead: Partial<Record<LimitName, number>> | undefined

/** The hard limits of this process by limit name, from `/proc/self/limits`; none where unlimited. */
function hardLimits(): Partial<Record<LimitName, number>> {
  hardLimitsRead ??= readHardLimits()
  return hardLimitsRead
}

function readHardLimits(): Partial<Record<LimitName, number>> {
  let lines: string[]
  try {
    lines = readFileSync('/proc/self/limits', 'utf8').split('\n')
  } catch {
    return {}
  }
  const found: Partial<Record<LimitName, number>> = {}
  for (const name of LIMIT_NAMES) {
    const row = RESOURCES[name]?.row
    if (row === undefined) continue
    const line = lines.find((candidate) => candidate.startsWith(row))
    const hard = line?.slice(row.length).trim().split(/\s+/)[1]
    if (hard !== undefined && /^\d+$/.test(hard)) found[name] = Number(hard)
  }
  return found
}

/**
 * The `prlimit` options that apply `limits` (soft and hard alike, so a command cannot raise
 * them), each capped at this process's own hard limit, which no child can exceed anyway.
 * The CPU hard limit is a second above the soft one: SIGXCPU first, then SIGKILL.
 */
export function prlimitOptions(limits: SandboxLimits): string[] {
  const hard = hardLimits()
  const options: string[] = []
  for (const name of LIMIT_NAMES) {
    const value = limits[name]
    const option = RESOURCES[name]?.option
    if (value === undefined || option === undefined) continue
    const cap = hard[name] ?? Number.POSITIVE_INFINITY
    const soft = Math.min(value, cap)
    const ceiling = name === 'cpuSeconds' ? Math.min(value + 1, cap) : soft
    options.push(`${option}=${soft}:${ceiling}`)
  }
  return options
}
