import { spawn } from 'node:child_process'
import { realpathSync } from 'node:fs'
import { lstat } from 'node:fs/promises'
import { posix } from 'node:path'
import { checkPathOnDisk } from '../checks/path-on-disk.js'
import { isWithin, type PathScope } from '../checks/path-scope.js'
import { looksLikePath } from '../command/check-command-paths.js'
import type { PlanCompiler } from '../compile/plan-compiler.js'
import type { ToolFunction } from '../execute/execute-plan.js'
import type { PlanIssue } from '../issues/plan-issue.js'
import { refuse, stringArgument } from './tool-input.js'

/** Options of the `run_command` reference tool. */
export interface RunCommandOptions {
  /** Time limit, in milliseconds; the whole process group is killed after it. Default 60 s. */
  readonly timeoutMs?: number
  /** Most bytes kept of stdout and of stderr each; the process is killed past it. Default 1 MiB. */
  readonly maxOutputBytes?: number
  /** The PATH programs are looked up in. Defaults to this process's PATH, minus relative and workspace entries. */
  readonly path?: string
  /** Extra environment variables; by default the child gets only PATH, HOME (the workspace) and LANG. */
  readonly env?: Readonly<Record<string, string>>
}

/** What `run_command` returns. A non-zero exit is a result, not an error. */
export interface RunCommandOutput {
  /** The exit code, or null when the process was killed by a signal. */
  readonly exitCode: number | null
  readonly signal: string | null
  readonly stdout: string
  readonly stderr: string
  /** True when output was cut off at `maxOutputBytes` (the process was then killed). */
  readonly truncated: boolean
  readonly timedOut: boolean
}

function realOrSelf(path: string): string {
  try {
    return realpathSync.native(path)
  } catch {
    return path
  }
}

/**
 * PATH entries that cannot be planted by the agent: absolute, and outside every workspace
 * root (a program written into the workspace must never be found by name).
 */
function safePath(path: string, roots: readonly string[]): string {
  const blocked = [...roots, ...roots.map(realOrSelf)]
  return path
    .split(':')
    .filter((entry) => posix.isAbsolute(entry))
    .filter(
      (entry) =>
        !blocked.some((root) => isWithin(root, entry) || isWithin(root, realOrSelf(entry))),
    )
    .join(':')
}

/**
 * Checks on disk every argument that names a path (it looks like one, or it exists in the
 * working folder), so `cat link/passwd` through a link that leads out is refused. Words that
 * are not plain paths (URLs, `~`) are left to the command check, which already judged them.
 */
async function checkArgumentsOnDisk(
  argv: readonly string[],
  cwd: string,
  scope: PathScope,
): Promise<PlanIssue | undefined> {
  for (const word of argv.slice(1)) {
    const equals = word.startsWith('--') ? word.indexOf('=') : -1
    const value = equals === -1 ? word : word.slice(equals + 1)
    if (value.length === 0 || value.startsWith('-')) continue
    let named = looksLikePath(value)
    if (!named && !value.includes('\0')) {
      named = await lstat(posix.resolve(cwd, value)).then(
        () => true,
        () => false,
      )
    }
    if (!named) continue
    const result = await checkPathOnDisk(value, scope, 'read')
    if (!result.allowed && result.issue.code !== 'path_invalid') {
      return {
        code: result.issue.code,
        message: result.issue.message,
        hint: result.issue.hint,
        path: ['command'],
      }
    }
  }
  return undefined
}

/**
 * Creates `run_command({ command })`: checks the command with `compiler.checkCommand` and
 * runs the resulting `argv` directly (no shell), in the first workspace root, with a
 * scrubbed environment, stdin closed, its path arguments checked on disk, a timeout and an output cap. The process runs in its
 * own process group, which is killed on timeout, on abort, on overflow and when the program
 * exits, so no background process outlives the call.
 */
export function createRunCommandTool(
  compiler: PlanCompiler,
  options: RunCommandOptions = {},
): ToolFunction {
  const timeoutMs = options.timeoutMs ?? 60_000
  const maxOutputBytes = options.maxOutputBytes ?? 1024 * 1024
  const scope = compiler.policy.scope
  const searchPath = safePath(
    options.path ?? process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    scope.roots,
  )
  return async (args, context): Promise<RunCommandOutput> => {
    const command = stringArgument('run_command', args, 'command')
    const check = compiler.checkCommand(command)
    if (!check.allowed)
      refuse('run_command', { ...check.issue, path: ['command', ...check.issue.path] })
    const [program, ...rest] = check.argv
    if (program === undefined || program.includes('/')) {
      refuse('run_command', {
        code: 'command_not_allowed',
        message: 'The program must be a bare name from commands.allow.',
        path: ['command'],
      })
    }
    const root = await checkPathOnDisk('.', scope, 'read')
    if (!root.allowed) refuse('run_command', { ...root.issue, path: ['command'] })
    const onDisk = await checkArgumentsOnDisk(check.argv, root.resolved, scope)
    if (onDisk !== undefined) refuse('run_command', onDisk)
    context?.signal?.throwIfAborted()
    const env: Record<string, string> = {
      PATH: searchPath,
      HOME: root.resolved,
      LANG: 'C.UTF-8',
      ...options.env,
    }
    return await new Promise<RunCommandOutput>((resolve, reject) => {
      const child = spawn(program, rest, {
        cwd: root.resolved,
        env,
        shell: false,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
      })
      const out: Buffer[] = []
      const err: Buffer[] = []
      const size = { out: 0, err: 0 }
      let truncated = false
      let timedOut = false
      const killGroup = () => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
        } catch {
          // The group is already gone.
        }
      }
      const collect = (chunks: Buffer[], key: 'out' | 'err') => (chunk: Buffer) => {
        const room = maxOutputBytes - size[key]
        if (room <= 0) return
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room))
          size[key] = maxOutputBytes
          truncated = true
          killGroup()
          return
        }
        chunks.push(chunk)
        size[key] += chunk.length
      }
      child.stdout.on('data', collect(out, 'out'))
      child.stderr.on('data', collect(err, 'err'))
      const timer = setTimeout(() => {
        timedOut = true
        killGroup()
      }, timeoutMs)
      const onAbort = () => killGroup()
      context?.signal?.addEventListener('abort', onAbort, { once: true })
      child.on('exit', killGroup)
      child.on('error', (error) => {
        clearTimeout(timer)
        context?.signal?.removeEventListener('abort', onAbort)
        reject(error)
      })
      child.on('close', (code, signal) => {
        clearTimeout(timer)
        context?.signal?.removeEventListener('abort', onAbort)
        resolve({
          exitCode: code,
          signal,
          stdout: Buffer.concat(out).toString('utf8'),
          stderr: Buffer.concat(err).toString('utf8'),
          truncated,
          timedOut,
        })
      })
    })
  }
}
