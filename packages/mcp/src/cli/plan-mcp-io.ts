import type { Readable, Writable } from 'node:stream'

/** Where `plan-mcp` reads and writes; `process` in the binary, streams in tests. */
export interface PlanMcpIo {
  /** The MCP client's side of stdio (protocol messages only). */
  readonly stdin: Readable
  readonly stdout: Writable
  /** Diagnostics; MCP clients such as Claude Desktop keep it in their server logs. */
  readonly stderr: { write(text: string): unknown }
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
  /** Aborted to stop the proxy (the binary aborts it on SIGINT and SIGTERM). */
  readonly signal?: AbortSignal
}

/** Exit codes: success, a refused plan, unusable input. */
export const EXIT_OK = 0
export const EXIT_FAILED = 1
export const EXIT_USAGE = 2

/** The environment without unset variables. */
export function definedEnv(env: PlanMcpIo['env']): Record<string, string> {
  const defined: Record<string, string> = {}
  for (const [key, value] of Object.entries(env)) if (value !== undefined) defined[key] = value
  return defined
}
