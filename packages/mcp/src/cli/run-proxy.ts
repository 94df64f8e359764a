import { createMcpGuardProxy } from '../proxy/create-mcp-guard-proxy.js'
import { StdioLineTransport } from '../proxy/stdio-line-transport.js'
import type { ProxyCommand } from './parse-cli-args.js'
import { EXIT_OK, type PlanMcpIo } from './plan-mcp-io.js'
import { loadProxySetup } from './proxy-setup.js'

/**
 * Runs the proxy until the client or the server closes, or `io.signal` aborts: MCP over
 * `io.stdin`/`io.stdout` towards the client, the server started from `command.server` or
 * reached at `command.url`. Throws `PlanError` for an unusable policy, plan, audit log or
 * sandbox.
 */
export async function runProxy(command: ProxyCommand, io: PlanMcpIo): Promise<number> {
  const setup = await loadProxySetup(command, io)
  const proxy = await createMcpGuardProxy({
    ...setup.guard,
    client: new StdioLineTransport(io.stdin, io.stdout),
    server: setup.server(),
  })
  io.signal?.addEventListener('abort', () => void proxy.close(), { once: true })
  await proxy.closed
  return EXIT_OK
}
