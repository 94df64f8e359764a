import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createMcpGuardHttpHandler } from '../proxy/create-mcp-guard-http-handler.js'
import type { ProxyCommand } from './parse-cli-args.js'
import { EXIT_OK, type PlanMcpIo } from './plan-mcp-io.js'
import { loadProxySetup } from './proxy-setup.js'

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1'])

/** The Host headers a loopback listener accepts (DNS rebinding protection); any elsewhere. */
function allowedHosts(host: string, port: number): string[] | undefined {
  if (!LOOPBACK.has(host)) return undefined
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]
}

/**
 * Serves MCP over Streamable HTTP at `http://<host>:<port>/mcp` until `io.signal` aborts, one
 * guarded proxy and one server per session.
 */
export async function runListen(
  command: ProxyCommand & { readonly listen: number },
  io: PlanMcpIo,
): Promise<number> {
  const setup = await loadProxySetup(command, io)
  let handler: Awaited<ReturnType<typeof createMcpGuardHttpHandler>> | undefined
  const http = createServer((request, response) => {
    if (handler === undefined || new URL(request.url ?? '/', 'http://host').pathname !== '/mcp') {
      response.writeHead(404).end()
      return
    }
    void handler.handle(request, response)
  })
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject)
    http.listen(command.listen, command.host, resolve)
  })
  const { port } = http.address() as AddressInfo
  const hosts = allowedHosts(command.host, port)
  handler = await createMcpGuardHttpHandler({
    ...setup.guard,
    server: setup.server,
    ...(hosts === undefined ? {} : { allowedHosts: hosts }),
  })
  const shown = command.host.includes(':') ? `[${command.host}]` : command.host
  io.stderr.write(`plan-mcp: listening on http://${shown}:${port}/mcp\n`)
  await new Promise<void>((resolve) => {
    if (io.signal === undefined || io.signal.aborted) return resolve()
    io.signal.addEventListener('abort', () => resolve(), { once: true })
  })
  await handler.close()
  http.closeAllConnections()
  await new Promise((resolve) => http.close(resolve))
  return EXIT_OK
}
