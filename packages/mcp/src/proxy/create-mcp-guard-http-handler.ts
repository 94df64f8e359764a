import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'
import {
  type AdapterGuardSettings,
  type AdapterOptions,
  type CallDecisionEvent,
  type PlanCompiler,
  PlanError,
} from '@plan/core'
import { countOption, resolveCompiler } from '@plan/core/adapter'
import type { McpGuardSettings } from '../guard/create-mcp-call-guard.js'
import { createResourceCheck } from '../guard/resource-check.js'
import { bearerTokenCheck } from './bearer-token.js'
import {
  createMcpGuardProxy,
  type McpGuardProxy,
  type McpServerCommand,
} from './create-mcp-guard-proxy.js'
import { type SessionSlot, SessionTable } from './http-sessions.js'
import { MAX_TIMER_MS, type StartTimer, startUnrefTimer } from './idle-timer.js'

/** Largest request body read to open a session, in bytes. */
const MAX_BODY_BYTES = 4 * 1024 * 1024
/** Sessions open at once by default: each has a server process of its own. */
const DEFAULT_MAX_SESSIONS = 64
/** How long a session may stay idle by default. */
const DEFAULT_SESSION_IDLE: DelayDefault = { ms: 30 * 60 * 1000, text: '30 minutes' }
/** How often an open event stream gets a keepalive comment by default. */
const DEFAULT_KEEP_ALIVE: DelayDefault = { ms: 15 * 1000, text: '15 seconds' }

/**
 * Options for {@link createMcpGuardHttpHandler}: the adapter options, the guard's settings
 * that apply to every session (each session is a run of its own, in `store` when given: no
 * `state` or `retryInterrupted`), and the endpoint's own (`runId` names the sessions' runs).
 */
export type McpGuardHttpHandlerOptions = AdapterOptions<CallDecisionEvent> &
  Omit<AdapterGuardSettings, 'retryInterrupted'> &
  Omit<McpGuardSettings, 'state' | 'runId'> &
  McpHttpEndpoint

/** How the HTTP endpoint reaches servers and which hosts it answers. */
export interface McpHttpEndpoint {
  /** The wrapped server of each session: a command started per session, or a factory of either. */
  readonly server: McpServerCommand | (() => McpServerCommand | Transport)
  /**
   * With `store`: each session is a run of its own in it, `<runId>:<session id>` (one writer per
   * run), while the shared budgets of `keys` hold across sessions and processes. Default
   * `plan-mcp-<random UUID>`, one per handler.
   */
  readonly runId?: string
  /**
   * `Host` header values accepted, e.g. `["127.0.0.1:8808", "localhost:8808"]`, so a web page
   * cannot reach a local proxy through DNS rebinding. Any host when absent.
   */
  readonly allowedHosts?: readonly string[]
  /**
   * A secret every request must carry as `Authorization: Bearer <token>` (at least 32
   * characters); others get 401. No check when absent: then anything that can reach the
   * address can open a session.
   */
  readonly bearerToken?: string
  /**
   * Sessions open at once (each starts a server). A new session past it closes the session
   * least recently used that has no request open (its client gets 404 and starts again), or
   * gets 503 when every session is busy. Default 64.
   */
  readonly maxSessions?: number
  /**
   * Milliseconds a session may go with no request and no event stream open before it is
   * closed with its server (its client then gets 404 and starts again). `0` or `Infinity`:
   * never. Default 30 minutes.
   */
  readonly sessionIdleMs?: number
  /**
   * Milliseconds between the `: keepalive` comment lines written on each open event stream
   * (clients ignore them). A client gone without closing its connection then makes a write
   * fail once the operating system gives up on it (minutes; about 15 with Linux defaults), the
   * stream closes, and `sessionIdleMs` starts counting. Proxies that drop quiet connections
   * keep the stream too. `0` or `Infinity`: none. Default 15 seconds.
   */
  readonly keepAliveMs?: number
  /** Transport errors. Default: ignored. */
  readonly onError?: (error: Error) => void
}

/** Serves MCP over Streamable HTTP, one guarded proxy (and one server) per session. */
export interface McpGuardHttpHandler {
  /** Handles one request to the MCP endpoint (POST, GET or DELETE). */
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>
  /** How many sessions are open. */
  readonly sessions: number
  /** Closes every session and stops their servers. */
  close(): Promise<void>
}

function reply(
  response: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers })
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }))
}

/** The request body as JSON; undefined when it is too large or not JSON. */
async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > MAX_BODY_BYTES) return undefined
    chunks.push(chunk)
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'))
  } catch {
    return undefined
  }
}

/** A delay option's default, in milliseconds and in words. */
interface DelayDefault {
  readonly ms: number
  readonly text: string
}

/**
 * A delay option in milliseconds (`Infinity` for `0` or `Infinity`: never), the default when
 * absent; a `PlanError` for one that is not a delay.
 */
function delayOption(name: string, value: number | undefined, fallback: DelayDefault): number {
  if (value === undefined) return fallback.ms
  if (value === 0 || value === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY
  if (value > 0 && value <= MAX_TIMER_MS) return value
  throw new PlanError(
    `${name} must be a number of milliseconds from 0 (never) to ${MAX_TIMER_MS}, or Infinity (never), not ${String(value)}; leave it out for ${fallback.text}.`,
    { code: 'invalid_configuration' },
  )
}

/** What every session of one handler shares. */
interface Endpoint {
  readonly options: McpGuardHttpHandlerOptions
  readonly compiler: PlanCompiler
  readonly sessions: SessionTable
  /** Milliseconds between keepalive comments on event streams; `Infinity`: none. */
  readonly keepAliveMs: number
  /** What each session's run id in the store starts with. */
  readonly runPrefix: string
}

/** Opens a session for an `initialize` request in `slot`: its transport, proxy and server. */
async function openSession(
  { options, compiler, sessions, keepAliveMs, runPrefix }: Endpoint,
  request: IncomingMessage,
  response: ServerResponse,
  slot: SessionSlot,
): Promise<void> {
  const body = await readJson(request)
  if (!isInitializeRequest(body)) {
    reply(response, 400, 'Bad Request: no valid session id; a session starts with initialize')
    return
  }
  // Known before the session opens: with a store, the session's run is named by it.
  const sessionId = randomUUID()
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => sessionId,
    // The transport takes 0 for none.
    keepAliveMs: keepAliveMs === Number.POSITIVE_INFINITY ? 0 : keepAliveMs,
    onsessioninitialized: (id) => sessions.opened(id, transport, proxy, response),
  })
  let proxy: McpGuardProxy
  try {
    const server = typeof options.server === 'function' ? options.server() : options.server
    // Every session shares the compiler made once, in place of the policy.
    const runId = options.store === undefined ? undefined : `${runPrefix}:${sessionId}`
    const guard = { ...options, policy: undefined, compiler, runId }
    proxy = await createMcpGuardProxy({ ...guard, client: transport, server })
  } catch (error) {
    options.onError?.(error instanceof Error ? error : new Error(String(error)))
    reply(response, 502, 'The MCP server could not be started')
    return
  }
  sessions.opening(slot, transport, proxy)
  await transport.handleRequest(request, response, body)
  // Refused by the transport (headers, content type): no session will ever use this server.
  if (transport.sessionId === undefined) await proxy.close()
}

/**
 * An HTTP request handler that serves MCP over Streamable HTTP with the `@plan` guard in front
 * of the wrapped server. Each session (each `initialize`) gets its own proxy, its own guard
 * and budgets, and its own server; the policy is compiled once.
 *
 * @example
 * ```ts
 * const handler = await createMcpGuardHttpHandler({
 *   policy,
 *   server: { command: ['npx', '-y', '@modelcontextprotocol/server-filesystem', '/srv/repo'] },
 *   allowedHosts: ['127.0.0.1:8808', 'localhost:8808'],
 * })
 * createServer((request, response) => void handler.handle(request, response)).listen(8808, '127.0.0.1')
 * ```
 */
export function createMcpGuardHttpHandler(
  options: McpGuardHttpHandlerOptions,
): Promise<McpGuardHttpHandler> {
  return createHttpHandler(options, startUnrefTimer)
}

/** {@link createMcpGuardHttpHandler} with the timer that measures idle sessions. */
export async function createHttpHandler(
  options: McpGuardHttpHandlerOptions,
  startTimer: StartTimer,
): Promise<McpGuardHttpHandler> {
  const authorized =
    options.bearerToken === undefined ? undefined : bearerTokenCheck(options.bearerToken)
  const maxSessions = countOption('maxSessions', options.maxSessions, DEFAULT_MAX_SESSIONS)
  const idleMs = delayOption('sessionIdleMs', options.sessionIdleMs, DEFAULT_SESSION_IDLE)
  const idle = { ms: idleMs, start: startTimer }
  const keepAliveMs = delayOption('keepAliveMs', options.keepAliveMs, DEFAULT_KEEP_ALIVE)
  const compiler = await resolveCompiler(options, 'The MCP guard')
  // A resources setting that makes no sense stops the handler, not each session it opens.
  createResourceCheck(compiler, {
    mode: options.resources ?? 'policy',
    schemes: options.resourceSchemes,
    onDisk: false,
  })
  const sessions = new SessionTable(maxSessions, idle)
  const runPrefix = options.runId ?? `plan-mcp-${randomUUID()}`
  const endpoint: Endpoint = { options, compiler, sessions, keepAliveMs, runPrefix }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (
      options.allowedHosts !== undefined &&
      !options.allowedHosts.includes(request.headers.host ?? '')
    ) {
      reply(response, 403, 'Forbidden: this Host is not allowed')
      return
    }
    if (authorized !== undefined && !authorized(request)) {
      reply(response, 401, 'Unauthorized: send Authorization: Bearer <token>', {
        'www-authenticate': 'Bearer',
      })
      return
    }
    const id = request.headers['mcp-session-id']
    if (typeof id === 'string') {
      if (!(await sessions.serve(id, request, response))) reply(response, 404, 'Session not found')
      return
    }
    if (request.method !== 'POST') {
      reply(response, 400, 'Bad Request: no session id')
      return
    }
    const slot = await sessions.reserve()
    if (slot === undefined) {
      reply(response, 503, `Service Unavailable: ${maxSessions} sessions are open; close one first`)
      return
    }
    try {
      await openSession(endpoint, request, response, slot)
    } finally {
      slot.release()
    }
  }

  return {
    handle,
    get sessions() {
      return sessions.size
    },
    close: () => sessions.closeAll(),
  }
}
