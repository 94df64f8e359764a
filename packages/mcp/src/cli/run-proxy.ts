import { createMcpGuardProxy } from '../proxy/create-mcp-guard-proxy.js'
import { StdioLineTransport } from '../proxy/stdio-line-transport.js'
import { openStore } from './open-store.js'
import type { ProxyCommand } from './parse-cli-args.js'
import { EXIT_FAILED, EXIT_OK, type PlanMcpIo } from './plan-mcp-io.js'
import { loadProxySetup } from './proxy-setup.js'

/**
 * Runs the proxy until the client or the server closes, or `io.signal` aborts: MCP over
 * `io.stdin`/`io.stdout` towards the client, the server started from `command.server` or
 * reached at `command.url`; with `command.store`, the guard's state and the shared budgets
 * in PostgreSQL. Throws `PlanError` for an unusable policy, plan, audit log, sandbox or store.
 */
export async function runProxy(command: ProxyCommand, io: PlanMcpIo): Promise<number> {
  const setup = await loadProxySetup(command, io)
  const opened = await openStore(command)
  try {
    const proxy = await createMcpGuardProxy({
      ...setup.guard,
      ...(opened === undefined
        ? {}
        : { store: opened.store, runId: opened.runId, keys: opened.keys }),
      client: new StdioLineTransport(io.stdin, io.stdout),
      server: setup.server(),
    })
    io.signal?.addEventListener('abort', () => void proxy.close(), { once: true })
    await proxy.closed
    return setup.serverFailed() ? EXIT_FAILED : EXIT_OK
  } finally {
    await opened?.close()
  }
}
