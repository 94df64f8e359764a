import { PlanError, type ResolvedPolicy } from '@plan/core'
import type { SpawnServer } from '../proxy/spawn-server.js'

/** The part of `@plan/sandbox` the proxy uses. */
interface SandboxModule {
  createSandbox(
    policy: ResolvedPolicy,
    options: { readonly readPaths?: readonly string[] },
  ): {
    spawn: SpawnServer
  }
}

function sandboxError(message: string, cause?: unknown): PlanError {
  return new PlanError(message, {
    issues: [
      {
        code: 'invalid_arguments',
        message,
        path: ['--sandbox'],
        hint: 'Install @plan/sandbox next to @plan/mcp, or run without --sandbox.',
      },
    ],
    ...(cause === undefined ? {} : { cause }),
  })
}

/** Options of {@link loadSandboxSpawn}. */
export interface SandboxSpawnOptions {
  /** More folders the server may read (never write), such as the folder its code lives in. */
  readonly readPaths?: readonly string[]
  /** Where the sandboxed server's stderr is forwarded. Default: dropped. */
  readonly stderr?: { write(text: string): unknown }
  /** Called with a report when the server ends with a non-zero exit code or a signal. */
  readonly onServerExit?: (report: string) => void
}

// Lines in which a program says it could not find or open a file.
const MISSING =
  /ENOENT|EACCES|No such file or directory|Permission denied|Cannot find module|not found/i

/**
 * What to tell the user about a sandboxed server that ended with `code` (or `signal`), from
 * the end of its stderr: the exit, and the `--sandbox-read` hint, with the paths it could not
 * open when it names them.
 */
export function serverExitReport(
  code: number | null,
  signal: string | null,
  stderr: string,
): string {
  const how = signal === null ? `exit code ${code}` : `signal ${signal}`
  const paths = new Set<string>()
  for (const line of stderr.split('\n'))
    if (MISSING.test(line))
      for (const match of line.matchAll(/(?:^|[\s'"`(])(\/[^\s'"`):]+)/g))
        if (match[1] !== undefined) paths.add(match[1])
  const named = [...paths].slice(0, 3)
  const hint =
    named.length === 0
      ? 'A server that needs files outside the workspace and the system folders (its own code, its runtime) gets them with --sandbox-read <folder>.'
      : `It could not open ${named.join(', ')}: if the server needs it, add --sandbox-read <folder> for the folder that holds it.`
  return `plan-mcp: the sandboxed server ended with ${how}.\nhint: ${hint}\n`
}

/**
 * The spawner of `@plan/sandbox` for `policy`: the wrapped server then runs in an OS sandbox
 * built from the same policy. Throws `PlanError` when the package cannot be imported.
 */
export async function loadSandboxSpawn(
  policy: ResolvedPolicy,
  options: SandboxSpawnOptions = {},
  load: () => Promise<unknown> = () => import('@plan/sandbox'),
): Promise<SpawnServer> {
  let module: unknown
  try {
    module = await load()
  } catch (error) {
    throw sandboxError('--sandbox requires @plan/sandbox, which could not be imported.', error)
  }
  const createSandbox = (module as Partial<SandboxModule>)?.createSandbox
  if (typeof createSandbox !== 'function')
    throw sandboxError('--sandbox requires @plan/sandbox, whose createSandbox was not found.')
  const sandbox = createSandbox(policy, { readPaths: options.readPaths ?? [] })
  return (argv, spawnOptions) => {
    const child = sandbox.spawn(argv, spawnOptions)
    let tail = ''
    // Always read: a full stderr pipe would stop the server.
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString()
      options.stderr?.write(text)
      tail = (tail + text).slice(-8192)
    })
    child.once('close', (code, signal) => {
      if (code !== 0 || signal !== null)
        options.onServerExit?.(serverExitReport(code, signal, tail))
    })
    return child
  }
}
