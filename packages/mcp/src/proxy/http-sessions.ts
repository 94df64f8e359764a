import type { IncomingMessage, ServerResponse } from 'node:http'
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { McpGuardProxy } from './create-mcp-guard-proxy.js'
import type { StartTimer } from './idle-timer.js'

interface Session {
  readonly id: string
  readonly transport: StreamableHTTPServerTransport
  readonly proxy: McpGuardProxy
  /** Requests of the session not yet answered, open event streams included. */
  active: number
  /** When the session last had a request open, as a count of requests the table has seen. */
  lastUsed: number
  /** Cancels the timer that closes the session once idle; set while no request is open. */
  cancelIdle: (() => void) | undefined
}

/** How long a session may stay idle, and the timer that measures it. */
export interface IdleLimit {
  /** Milliseconds with no request and no event stream open; `Infinity`: no limit. */
  readonly ms: number
  readonly start: StartTimer
}

/** A place for one new session, held from before its `initialize` is read until it opens. */
export interface SessionSlot {
  /** Gives the place back unless a session took it; safe to call more than once. */
  release(): void
}

/**
 * The sessions of an HTTP endpoint, each with its own proxy and server, at most `limit` at
 * once counting those still opening. Past the limit, the session least recently used with no
 * request open (a client that went away without ending its session) is closed to make room;
 * a session with no request open for `idle.ms` is closed too.
 */
export class SessionTable {
  readonly #sessions = new Map<string, Session>()
  /** Proxies whose session has not finished `initialize`. */
  readonly #opening = new Set<McpGuardProxy>()
  /** Slots handed out and not yet taken by a session or given back. */
  #reserved = 0
  #requestsSeen = 0

  constructor(
    readonly limit: number,
    readonly idle: IdleLimit,
  ) {}

  /** Sessions open (initialized). */
  get size(): number {
    return this.#sessions.size
  }

  /** Starts tracking a proxy whose transport is about to handle its `initialize`, in `slot`. */
  opening(slot: SessionSlot, transport: StreamableHTTPServerTransport, proxy: McpGuardProxy): void {
    slot.release()
    this.#opening.add(proxy)
    void proxy.closed.then(() => {
      this.#opening.delete(proxy)
      const session = this.#sessions.get(transport.sessionId ?? '')
      if (session?.proxy === proxy) this.#remove(session)
    })
  }

  /**
   * The proxy's `initialize` gave the session its id; `response`, the answer to that
   * `initialize`, is still open.
   */
  opened(
    id: string,
    transport: StreamableHTTPServerTransport,
    proxy: McpGuardProxy,
    response: ServerResponse,
  ): void {
    this.#opening.delete(proxy)
    const session: Session = {
      id,
      transport,
      proxy,
      active: 0,
      lastUsed: 0,
      cancelIdle: undefined,
    }
    this.#sessions.set(id, session)
    this.#track(session, response)
  }

  /** Hands a request to its session's transport; false when there is no such session. */
  async serve(id: string, request: IncomingMessage, response: ServerResponse): Promise<boolean> {
    const session = this.#sessions.get(id)
    if (session === undefined) return false
    this.#track(session, response)
    await session.transport.handleRequest(request, response)
    return true
  }

  /**
   * A slot for one more session, taken at once (so requests at the same time cannot all pass
   * the limit): below the limit, or in place of the idlest session, which is closed; none when
   * every session is busy.
   */
  async reserve(): Promise<SessionSlot | undefined> {
    if (this.#count() < this.limit) return this.#slot()
    let idlest: Session | undefined
    for (const session of this.#sessions.values()) {
      if (session.active === 0 && (idlest === undefined || session.lastUsed < idlest.lastUsed))
        idlest = session
    }
    if (idlest === undefined) return undefined
    this.#remove(idlest)
    const slot = this.#slot()
    await idlest.proxy.close()
    return slot
  }

  /** Closes every session, opening or open, and stops their servers. */
  async closeAll(): Promise<void> {
    const sessions = [...this.#sessions.values()]
    for (const session of sessions) this.#remove(session)
    const proxies = [...this.#opening, ...sessions.map((session) => session.proxy)]
    await Promise.allSettled(proxies.map((proxy) => proxy.close()))
  }

  /** Counts `response` as open in `session` until it closes; the idle timer runs meanwhile. */
  #track(session: Session, response: ServerResponse): void {
    session.active += 1
    session.lastUsed = this.#tick()
    session.cancelIdle?.()
    session.cancelIdle = undefined
    response.once('close', () => {
      session.active -= 1
      session.lastUsed = this.#tick()
      if (session.active === 0 && this.#sessions.get(session.id) === session)
        this.#startIdle(session)
    })
  }

  #startIdle(session: Session): void {
    if (this.idle.ms === Number.POSITIVE_INFINITY) return
    session.cancelIdle = this.idle.start(() => {
      session.cancelIdle = undefined
      if (session.active > 0 || this.#sessions.get(session.id) !== session) return
      this.#remove(session)
      void session.proxy.close()
    }, this.idle.ms)
  }

  /** Takes the session out of the table (new requests with its id get 404) and stops its timer. */
  #remove(session: Session): void {
    if (this.#sessions.get(session.id) === session) this.#sessions.delete(session.id)
    session.cancelIdle?.()
    session.cancelIdle = undefined
  }

  #count(): number {
    return this.#sessions.size + this.#opening.size + this.#reserved
  }

  #slot(): SessionSlot {
    this.#reserved += 1
    let held = true
    return {
      release: () => {
        if (held) this.#reserved -= 1
        held = false
      },
    }
  }

  #tick(): number {
    this.#requestsSeen += 1
    return this.#requestsSeen
  }
}
