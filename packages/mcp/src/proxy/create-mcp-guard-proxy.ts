import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { PlanCompiler, PlanGuard } from '@plan/core'
import { createMcpCallGuard, type McpGuardOptions } from '../guard/create-mcp-call-guard.js'
import { ChildProcessTransport } from './child-process-transport.js'
import { MessageRouter } from './route-messages.js'
import { type SpawnServer, spawnServerProcess } from './spawn-server.js'

/** How to start the wrapped server as a process speaking MCP over stdio. */
export interface McpServerCommand {
  /** The server's argv: program, then arguments. Run without a shell. */
  readonly command: readonly string[]
  readonly cwd?: string
  /** The server's environment. Default: this process's environment. */
  readonly env?: Readonly<Record<string, string>>
  /**
   * Starts the process; default {@link spawnServerProcess}. Plug a sandbox in here:
   * `spawn: (argv, options) => createSandbox(policy).spawn(argv, options)`.
   */
  readonly spawn?: SpawnServer
}

/** Options for {@link createMcpGuardProxy}: the guard's options and the two ends. */
export type McpGuardProxyOptions = McpGuardOptions & McpProxyEnds

/** The two ends of a proxy. */
export interface McpProxyEnds {
  /** The transport towards the MCP client (e.g. `new StdioServerTransport()`). */
  readonly client: Transport
  /** The wrapped server: a transport towards it, or the command that starts it. */
  readonly server: Transport | McpServerCommand
  /** Transport errors (a message that could not be delivered). Default: ignored. */
  readonly onError?: (error: Error) => void
}

/** A running proxy. */
export interface McpGuardProxy {
  /** The run-time guard; `guard.snapshot()` saves the session's budgets and steps. */
  readonly guard: PlanGuard
  readonly compiler: PlanCompiler
  /** `plan` when a plan was given, else `call` (each call compiled as a one-step plan). */
  readonly mode: 'plan' | 'call'
  /** The server's transport (a `ChildProcessTransport` when started from a command). */
  readonly serverTransport: Transport
  /** Resolves once either side has closed and both are shut down. */
  readonly closed: Promise<void>
  /** Closes both sides (the server process is stopped). */
  close(): Promise<void>
}

function isTransport(value: Transport | McpServerCommand): value is Transport {
  return typeof (value as Transport).send === 'function'
}

function serverTransportOf(server: Transport | McpServerCommand): Transport {
  if (isTransport(server)) return server
  return new ChildProcessTransport(server.command, server.spawn ?? spawnServerProcess, {
    ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
    ...(server.env === undefined ? {} : { env: server.env }),
  })
}

/**
 * Starts an MCP proxy that is a server towards the client and a client towards the wrapped
 * server. `tools/list` shows only the tools the policy lists (descriptions unchanged); every
 * `tools/call` is authorized by the `@plan` guard — argument checks with paths resolved on
 * disk, budgets, loop detection, the plan in plan mode, trust labels — and a refused call is
 * answered with an `isError` tool result naming the issues and hints. Everything else passes
 * through unchanged.
 *
 * @example
 * ```ts
 * import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
 *
 * const proxy = await createMcpGuardProxy({
 *   policy: await loadPolicy('policy.json'),
 *   client: new StdioServerTransport(),
 *   server: { command: ['npx', '-y', '@modelcontextprotocol/server-filesystem', '/srv/repo'] },
 * })
 * await proxy.closed
 * ```
 */
export async function createMcpGuardProxy(options: McpGuardProxyOptions): Promise<McpGuardProxy> {
  const callGuard = await createMcpCallGuard(options)
  const client = options.client
  const server = serverTransportOf(options.server)
  const onError = options.onError ?? (() => {})
  const router = new MessageRouter(callGuard, client, server, onError)
  let resolveClosed: () => void = () => {}
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve
  })
  let closing: Promise<void> | undefined
  const close = (): Promise<void> => {
    // set before closing anything: a transport's close() calls onclose, which lands here again
    closing ??= Promise.resolve()
      .then(() => Promise.allSettled([client.close(), server.close()]))
      .then(() => resolveClosed())
    return closing
  }
  server.onmessage = (message) => router.fromServer(message)
  server.onerror = onError
  server.onclose = () => {
    router.serverClosed()
    void close()
  }
  client.onmessage = (message) => router.fromClient(message)
  client.onerror = onError
  client.onclose = () => void close()
  await server.start()
  try {
    await client.start()
  } catch (error) {
    await server.close()
    throw error
  }
  return {
    guard: callGuard.guard,
    compiler: callGuard.compiler,
    mode: callGuard.mode,
    serverTransport: server,
    closed,
    close,
  }
}
