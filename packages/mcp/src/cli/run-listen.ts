import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { assertBearerToken } from '../proxy/bearer-token.js'
import { createMcpGuardHttpHandler } from '../proxy/create-mcp-guard-http-handler.js'
import { type OpenedStore, openStore } from './open-store.js'
import type { ProxyCommand } from './parse-cli-args.js'
import { EXIT_OK, EXIT_USAGE, type PlanMcpIo } from './plan-mcp-io.js'
import { loadProxySetup } from './proxy-setup.js'

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1'])

/** The Host headers a loopback listener accepts (DNS rebinding protection); any elsewhere. */
function allowedHosts(host: string, port: number): string[] | undefined {
  if (!LOOPBACK.has(host)) return undefined
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]
}

/** The environment variable holding the bearer token every request must carry. */
export const TOKEN_VARIABLE = 'PLAN_MCP_TOKEN'

/**
 * The bearer token from the environment (checked before anything listens), or the reason not
 * to listen: an address beyond loopback needs one.
 */
function listenToken(
  host: string,
  io: PlanMcpIo,
): { token: string | undefined } | { refusal: string } {
  const token = io.env[TOKEN_VARIABLE]
  if (token !== undefined && token !== '') {
    assertBearerToken(token)
    return { token }
  }
  if (LOOPBACK.has(host)) return { token: undefined }
  return {
    refusal: `--host ${host} is not loopback: set ${TOKEN_VARIABLE} to a secret of at least 32 characters (e.g. \`openssl rand -hex 32\`), which every client must send as Authorization: Bearer <token>`,
  }
}

/**
 * Serves MCP over Streamable HTTP at `http://<host>:<port>/mcp` until `io.signal` aborts, one
 * guarded proxy and one server per session.
 */
export async function runListen(
  command: ProxyCommand & { readonly listen: number },
  io: PlanMcpIo,
): Promise<number> {
  const auth = listenToken(command.host, io)
  if ('refusal' in auth) {
    io.stderr.write(`plan-mcp: ${auth.refusal}\n`)
    return EXIT_USAGE
  }
  const setup = await loadProxySetup(command, io)
  const opened = await openStore(command)
  try {
    return await serve(command, io, setup, auth.token, opened)
  } finally {
    await opened?.close()
  }
}

/** Listens, serves until `io.signal` aborts, then closes every session and the listener. */
async function serve(
  command: ProxyCommand & { readonly listen: number },
  io: PlanMcpIo,
  setup: Awaited<ReturnType<typeof loadProxySetup>>,
  token: string | undefined,
  opened: OpenedStore | undefined,
): Promise<number> {
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
  try {
    handler = await createMcpGuardHttpHandler({
      ...setup.guard,
      // Each session is a run of its own in the store; shared budgets hold across sessions.
      ...(opened === undefined
        ? {}
        : { store: opened.store, runId: opened.runId, keys: opened.keys }),
      server: setup.server,
      ...(hosts === undefined ? {} : { allowedHosts: hosts }),
      ...(token === undefined ? {} : { bearerToken: token }),
      ...(command.maxSessions === undefined ? {} : { maxSessions: command.maxSessions }),
      ...(command.sessionIdle === undefined ? {} : { sessionIdleMs: command.sessionIdle * 1000 }),
      ...(command.keepalive === undefined ? {} : { keepAliveMs: command.keepalive * 1000 }),
    })
  } catch (error) {
    // Nothing will serve the port: stop listening, so the process can end with the error.
    await new Promise((resolve) => http.close(resolve))
    throw error
  }
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
