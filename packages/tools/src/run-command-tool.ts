import { lstat, stat } from 'node:fs/promises'
import { posix } from 'node:path'
import type { PathScope, PlanCompiler, PlanIssue, ToolFunction } from '@plan/core'
import { traceSandboxViolations } from '@plan/core/adapter'
import { checkPathOnDisk } from '@plan/core/node'
import { looksLikePath } from '@plan/shell'
import type { CommandRunner, CommandRunResult } from './command-runner.js'
import { createUnsandboxedRunner } from './run-unsandboxed.js'
import { safeSearchPath } from './safe-search-path.js'
import { refuse, stringArgument } from './tool-input.js'
import { readWorkspaceFiles, type WorkspaceFiles, writtenFiles } from './workspace-writes.js'

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
  /**
   * Runs the checked program; `createSandboxedReferenceTools` from `@plan/sandbox` passes one
   * that runs it inside an OS sandbox. Without a runner, every call is refused
   * (`sandbox_unavailable`) unless `sandbox` is `'none'`.
   */
  readonly runner?: CommandRunner
  /** `'none'` runs programs without an OS sandbox, with a warning. Ignored when `runner` is set. */
  readonly sandbox?: 'none'
  /**
   * Compare the workspace root before and after each command and report the files it wrote
   * (`writtenFiles`), so the guard labels them like files a write tool writes. Default true.
   */
  readonly reportWrites?: boolean
}

/**
 * What `run_command` returns. A non-zero exit is a result, not an error. `writtenFiles` lists
 * the files (relative to the first workspace root) the command created or changed, `**` when
 * the workspace was too large to compare; it is left out when there are none.
 */
export type RunCommandOutput = CommandRunResult & { readonly writtenFiles?: readonly string[] }

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

/** The folders among a command's words (existing folders, relative to `cwd`). */
async function folderArguments(argv: readonly string[], cwd: string): Promise<string[]> {
  const folders: string[] = []
  for (const word of argv.slice(1)) {
    const equals = word.startsWith('--') ? word.indexOf('=') : -1
    const value = equals === -1 ? word : word.slice(equals + 1)
    if (value.length === 0 || value.startsWith('-') || value.includes('\0')) continue
    const path = posix.resolve(cwd, value)
    if (
      await stat(path).then(
        (found) => found.isDirectory(),
        () => false,
      )
    )
      folders.push(path)
  }
  return folders
}

/**
 * Refuses a command given a folder that holds a link leading out of the workspace or to a
 * denied path: `grep -R x docs` follows `docs/vendor -> /elsewhere`, which the check of the
 * word `docs` alone cannot see.
 */
async function checkLinksBelow(
  folders: readonly string[],
  root: string,
  walk: WorkspaceFiles,
  scope: PathScope,
): Promise<PlanIssue | undefined> {
  for (const link of walk.links) {
    const path = posix.join(root, link)
    const folder = folders.find((candidate) => path.startsWith(`${candidate}/`))
    if (folder === undefined) continue
    const result = await checkPathOnDisk(path, scope, 'read')
    if (result.allowed) continue
    return {
      code: result.issue.code,
      message: `The folder ${JSON.stringify(posix.relative(root, folder) || '.')} holds the link ${JSON.stringify(link)}, which a program reading the folder may follow: ${result.issue.message}`,
      hint: 'Name the folders to read below the link, or remove the link.',
      path: ['command'],
    }
  }
  return undefined
}

/**
 * Creates `run_command({ command })`: checks the command with `compiler.checkCommand`, checks
 * its path arguments on disk, and hands the resulting `argv` (no shell) to `options.runner`
 * in the first workspace root, with a timeout and an output cap. Without a runner it fails
 * closed, unless `sandbox: 'none'` runs the program directly with a scrubbed environment in
 * its own process group (killed on timeout, abort, overflow and exit).
 */
export function createRunCommandTool(
  compiler: PlanCompiler,
  options: RunCommandOptions = {},
): ToolFunction {
  const timeoutMs = options.timeoutMs ?? 60_000
  const reportWrites = options.reportWrites !== false
  const maxOutputBytes = options.maxOutputBytes ?? 1024 * 1024
  const scope = compiler.policy.scope
  const searchPath = safeSearchPath(
    options.path ?? process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    scope.roots,
  )
  let unsandboxed: CommandRunner | undefined
  const pickRunner = (home: string): CommandRunner => {
    if (options.runner !== undefined) return options.runner
    if (options.sandbox !== 'none') {
      refuse('run_command', {
        code: 'sandbox_unavailable',
        message: 'run_command has no sandbox to run the program in.',
        path: ['command'],
        hint: "Create the tools with createSandboxedReferenceTools from @plan/sandbox, pass a runner, or set sandbox: 'none' explicitly.",
      })
    }
    unsandboxed ??= createUnsandboxedRunner({ PATH: searchPath, HOME: home, LANG: 'C.UTF-8' })
    return unsandboxed
  }
  return async (args, context): Promise<RunCommandOutput> => {
    const command = stringArgument('run_command', args, 'command')
    const check = compiler.checkCommand(command)
    if (!check.allowed)
      refuse('run_command', { ...check.issue, path: ['command', ...check.issue.path] })
    const [program] = check.argv
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
    const folders = await folderArguments(check.argv, root.resolved)
    const walk =
      reportWrites || folders.length > 0 ? await readWorkspaceFiles(root.resolved) : undefined
    const linked =
      walk === undefined || folders.length === 0
        ? undefined
        : await checkLinksBelow(folders, root.resolved, walk, scope)
    if (linked !== undefined) refuse('run_command', linked)
    context?.signal?.throwIfAborted()
    const runner = pickRunner(root.resolved)
    const before = reportWrites ? walk : undefined
    const result = await runner(check.argv, {
      cwd: root.resolved,
      timeoutMs,
      maxOutputBytes,
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(context?.signal === undefined ? {} : { signal: context.signal }),
    })
    traceSandboxViolations(check.argv, result.violations)
    if (before === undefined) return result
    const written = writtenFiles(before, await readWorkspaceFiles(root.resolved))
    return written.length === 0 ? result : { ...result, writtenFiles: written }
  }
}
