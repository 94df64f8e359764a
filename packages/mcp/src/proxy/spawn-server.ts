import { type ChildProcess, spawn } from 'node:child_process'

/** Where and how the wrapped server starts. */
export interface SpawnServerOptions {
  readonly cwd?: string
  readonly env?: Readonly<Record<string, string>>
}

/**
 * Starts the wrapped MCP server from its argv and returns the process, with stdin and stdout
 * piped (stderr as the spawner chooses). `@plan/sandbox` provides one with the same contract:
 * `createSandbox(policy).spawn`.
 */
export type SpawnServer = (argv: readonly string[], options: SpawnServerOptions) => ChildProcess

/** Spawns the server directly, without a shell; its stderr goes to this process's stderr. */
export const spawnServerProcess: SpawnServer = (argv, options) => {
  const [command, ...args] = argv
  if (command === undefined) throw new TypeError('The server command is empty.')
  return spawn(command, args, {
    cwd: options.cwd,
    env: options.env === undefined ? process.env : { ...options.env },
    stdio: ['pipe', 'pipe', 'inherit'],
    shell: false,
  })
}
