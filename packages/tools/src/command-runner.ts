/** One access the OS sandbox refused, as far as the platform reports it. */
export interface CommandViolation {
  /** What was refused; `limit` is a resource limit the command reached. */
  readonly kind: 'read' | 'write' | 'network' | 'limit' | 'other'
  /** The line of the program's output that reports it. */
  readonly message: string
  /** The path or host refused, or the name of the limit reached, when known. */
  readonly target?: string
}

/** How a {@link CommandRunner} runs one program. */
export interface CommandRunOptions {
  /** Working folder (an absolute path inside the workspace). */
  readonly cwd: string
  /** Time limit in milliseconds; the program and its children are killed after it. */
  readonly timeoutMs: number
  /** Most bytes kept of stdout and of stderr each; the program is killed past it. */
  readonly maxOutputBytes: number
  /** Extra environment variables set by the caller (never the host's environment). */
  readonly env?: Readonly<Record<string, string>>
  /** Kills the program when it aborts. */
  readonly signal?: AbortSignal
}

/** What a {@link CommandRunner} resolves to. A non-zero exit is a result, not an error. */
export interface CommandRunResult {
  /** The exit code, or null when the program was killed by a signal. */
  readonly exitCode: number | null
  readonly signal: string | null
  readonly stdout: string
  readonly stderr: string
  /** True when output was cut off at `maxOutputBytes` (the program was then killed). */
  readonly truncated: boolean
  readonly timedOut: boolean
  /** Accesses the sandbox refused, when it reports them (empty when it runs unsandboxed). */
  readonly violations: readonly CommandViolation[]
}

/**
 * Runs one already-checked program (`argv[0]` is a bare name) and collects its output. The
 * reference `run_command` tool takes one; `@plan/sandbox` provides one that runs the program
 * inside an OS sandbox built from the policy.
 */
export type CommandRunner = (
  argv: readonly string[],
  options: CommandRunOptions,
) => Promise<CommandRunResult>
