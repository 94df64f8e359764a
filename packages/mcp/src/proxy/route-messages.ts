import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import {
  ErrorCode,
  isJSONRPCErrorResponse,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type JSONRPCResultResponse,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js'
import type { AuthorizeMcpResource } from '../guard/authorize-mcp-resource.js'
import type { McpCallGuard } from '../guard/create-mcp-call-guard.js'
import { taskRefusal } from '../guard/denial-result.js'
import {
  allowedPromptList,
  asRecord,
  PROMPT_GET,
  promptCompletion,
  RESOURCE_METHODS,
  toolNameOf,
  withheldNotice,
} from '../guard/message-fields.js'
import { isNotification, isRequest, isResultResponse } from './jsonrpc-kind.js'
import { type GuardedAnswer, RequestsInFlight } from './requests-in-flight.js'

/** Most pages the proxy lists of its own after `list_changed`; the client's listing does the rest. */
const MAX_RELIST_PAGES = 100

function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || typeof value === 'number'
}

/** The progress token a request asked for, if any. */
function progressToken(request: JSONRPCRequest): RequestId | undefined {
  const token = asRecord(asRecord(request.params)._meta).progressToken
  return isRequestId(token) ? token : undefined
}

/**
 * A server's error answer as the guard records it: everything the client is forwarded (message,
 * code and data), so text in any of it carries the tool's trust label.
 */
function serverError(error: { code: number; message: string; data?: unknown }): Error {
  return Object.assign(new Error(error.message), { code: error.code, data: error.data })
}

/**
 * Routes JSON-RPC messages between the client side and the server side of the proxy. Only
 * `tools/list` and `prompts/list` results (filtered, pins checked), `tools/call`, `prompts/get`
 * and prompt `completion/complete` requests (guarded), `resources/read` and
 * `resources/subscribe` requests (checked, unless `resources: 'pass'`) are touched, and
 * `notifications/tools/list_changed` makes the proxy list the tools again for the guard; every
 * other message — notifications, progress, cancellation, server-to-client requests — is
 * forwarded as it is, ids unchanged.
 *
 * Answers are matched to requests by id, so a request whose id is still in flight is refused
 * unsent, and an answer to no request in flight is dropped. A guarded request the client
 * cancels is recorded then as failed (the server need not answer it); its late answer is
 * dropped, as it would reach the model past the guard's record.
 */

export class MessageRouter {
  /** Client requests taken and not yet answered, by id (and the proxy's own listings). */
  private readonly inFlight = new RequestsInFlight()
  /** How many listings of its own the proxy has sent: their ids are `plan-mcp:tools/list:<n>`. */
  private relists = 0

  constructor(
    private readonly guard: McpCallGuard,
    private readonly client: Transport,
    private readonly server: Transport,
    private readonly onError: (error: Error) => void,
  ) {}

  /** Client messages sent while an answer was being delivered: they wait for its record. */
  private held: JSONRPCMessage[] | undefined

  /** A message from the client. */
  fromClient(message: JSONRPCMessage): void {
    if (this.held === undefined) this.route(message)
    else this.held.push(message)
  }

  private route(message: JSONRPCMessage): void {
    const method = asRecord(message).method
    // the id first: only a request's id is ever in flight, and most messages are new
    if (this.inFlight.has(asRecord(message).id as RequestId) && isRequest(message)) {
      this.refuseReusedId(message)
      return
    }
    if (method === 'tools/call') {
      if (!isRequest(message)) this.refuseMalformed(message, method)
      else if (asRecord(message.params).task === undefined) void this.call(message)
      else this.refuseTask(message, toolNameOf(asRecord(message.params)))
      return
    }
    const authorize = this.resourceAuthorizer(method)
    if (authorize !== undefined && typeof method === 'string') {
      if (!isRequest(message)) this.refuseMalformed(message, method)
      else if (asRecord(message.params).task === undefined) void this.resource(message, authorize)
      else this.refuseTask(message)
      return
    }
    if (method === 'completion/complete' && isRequest(message)) {
      const completion = promptCompletion(asRecord(message.params), this.guard)
      if ('issue' in completion) {
        this.forward(this.client, {
          jsonrpc: '2.0',
          id: message.id,
          error: {
            code: ErrorCode.InvalidParams,
            message: completion.issue.message,
            data: { issues: [completion.issue] },
          },
        })
        return
      }
      message = { ...message, params: completion.params }
    }
    if (isRequest(message)) {
      const kind =
        message.method === 'tools/list'
          ? 'list'
          : message.method === 'prompts/list'
            ? 'prompts'
            : 'forwarded'
      this.inFlight.set(message.id, { kind }, progressToken(message))
    } else if (method === 'notifications/cancelled' && isNotification(message)) {
      this.cancelled(asRecord(message.params).requestId)
    }
    this.forward(this.server, message)
  }

  /** The guard of a resource-like request (`resources/read`, `prompts/get`), if `method` is one. */
  private resourceAuthorizer(method: unknown): AuthorizeMcpResource | undefined {
    if (method === PROMPT_GET) return (_method, name) => this.guard.authorizePrompt(name)
    if (typeof method === 'string' && RESOURCE_METHODS.has(method))
      return this.guard.authorizeResource
    return undefined
  }

  /** A message from the wrapped server. */
  fromServer(message: JSONRPCMessage): void {
    const method = asRecord(message).method
    if (method === 'notifications/tools/list_changed' && isNotification(message)) {
      this.guard.toolsChanged()
      this.relist(undefined, 0)
    }
    if (method === 'notifications/progress' && isNotification(message)) {
      const token = asRecord(message.params).progressToken
      const related = isRequestId(token) ? this.inFlight.requestOf(token) : undefined
      this.forward(this.client, message, related)
      return
    }
    if (
      (isResultResponse(message) || isJSONRPCErrorResponse(message)) &&
      message.id !== undefined
    ) {
      this.answer(message, message.id)
      return
    }
    this.forward(this.client, message)
  }

  /**
   * Lists the server's tools for the guard (one page, then the next, up to a bound), so that a
   * changed tool is judged and reported without waiting for the client to list them again.
   */
  private relist(cursor: string | undefined, pages: number): void {
    if (pages >= MAX_RELIST_PAGES) return
    this.relists += 1
    const id = `plan-mcp:tools/list:${this.relists}`
    if (this.inFlight.has(id)) return
    this.inFlight.set(id, { kind: 'relist', pages: pages + 1 })
    const params = cursor === undefined ? {} : { cursor }
    this.server
      .send({ jsonrpc: '2.0', id, method: 'tools/list', params })
      .catch((error: unknown) => {
        this.inFlight.delete(id)
        this.onError(error instanceof Error ? error : new Error(String(error)))
      })
  }

  /** The answer to the proxy's own listing: recorded, withheld tools reported, never forwarded. */
  private relisted(message: JSONRPCResultResponse | JSONRPCErrorResponse, pages: number): void {
    if (!isResultResponse(message)) return
    const { withheld } = this.guard.listTools(message.result)
    if (withheld.length > 0)
      this.forward(this.client, { jsonrpc: '2.0', ...withheldNotice(withheld) })
    const next = asRecord(message.result).nextCursor
    if (typeof next === 'string') this.relist(next, pages)
  }

  /** The server is gone: calls still waiting for it will never finish. */
  serverClosed(): void {
    for (const request of this.inFlight.takeSent()) {
      if (request.kind === 'guarded') request.answer.fail(new Error('The MCP server closed.'))
    }
  }

  /** A server's answer, sent on only when it answers a request in flight (and recorded first). */
  private answer(message: JSONRPCResultResponse | JSONRPCErrorResponse, id: RequestId): void {
    const request = this.inFlight.get(id)
    if (request === undefined || request.kind === 'authorizing') {
      this.onError(
        new Error(
          `An answer to request ${JSON.stringify(id)}, which is not in flight, was dropped.`,
        ),
      )
      return
    }
    this.inFlight.delete(id)
    if (request.kind === 'cancelled') return
    if (request.kind === 'relist') {
      this.relisted(message, request.pages)
      return
    }
    if (request.kind === 'list' && isResultResponse(message)) {
      const { result, withheld } = this.guard.listTools(message.result)
      this.forward(this.client, { ...message, result })
      if (withheld.length > 0)
        this.forward(this.client, { jsonrpc: '2.0', ...withheldNotice(withheld) })
      return
    }
    if (request.kind === 'prompts' && isResultResponse(message)) {
      this.forward(this.client, {
        ...message,
        result: allowedPromptList(message.result, this.guard),
      })
      return
    }
    if (request.kind === 'guarded') {
      if (isResultResponse(message)) {
        this.deliver(message, request.answer)
        return
      }
      request.answer.fail(serverError(message.error))
    }
    this.forward(this.client, message)
  }

  /**
   * Sends a guarded request's answer on, then records it, in one turn of the event loop: the
   * client need not wait for the record, and what it sends back meanwhile (a transport that
   * delivers at once) is routed only once the record is made.
   */
  private deliver(message: JSONRPCResultResponse, answer: GuardedAnswer): void {
    const outermost = this.held === undefined
    const held = this.held ?? []
    this.held = held
    const send = (result: unknown) => {
      sent = true
      this.forward(this.client, { ...message, result: result as JSONRPCResultResponse['result'] })
    }
    let sent = false
    try {
      const result = answer.finish(message.result, send)
      // a guard that records before it returns leaves the sending to the router
      if (!sent) send(result)
    } finally {
      if (outermost) {
        this.held = undefined
        for (const next of held) this.route(next)
      }
    }
  }

  /**
   * The client gave up on a request. One being authorized is not sent; a guarded one sent is
   * recorded as failed now and stays in flight, its late answer dropped; any other leaves the
   * list (a server need not answer a cancelled request), so a late answer to it is dropped.
   */
  private cancelled(requestId: unknown): void {
    if (!isRequestId(requestId)) return
    const request = this.inFlight.get(requestId)
    if (request?.kind === 'authorizing') request.cancelled = true
    if (request?.kind === 'forwarded' || request?.kind === 'list' || request?.kind === 'prompts') {
      this.inFlight.delete(requestId)
    }
    if (request?.kind === 'guarded') {
      this.inFlight.set(requestId, { kind: 'cancelled', answer: request.answer })
      request.answer.fail(new Error('The client cancelled the call.'))
    }
  }

  /** A request whose id is still in flight: its answer could not be told apart; never sent. */
  private refuseReusedId(request: JSONRPCRequest): void {
    const text = `A ${request.method} request reused the id of a request in flight; it was not sent.`
    this.onError(new Error(text))
    this.forward(this.client, {
      jsonrpc: '2.0',
      id: request.id,
      error: { code: ErrorCode.InvalidRequest, message: text },
    })
  }

  /**
   * A guarded method's message that is not a well-formed request (a notification, extra
   * members) is never forwarded, whatever the server would make of it; with an id, the client
   * is told why.
   */
  private refuseMalformed(message: JSONRPCMessage, method: string): void {
    const text = `A ${method} message that is not a valid JSON-RPC request was not sent.`
    this.onError(new Error(text))
    const id = asRecord(message).id
    if (isRequestId(id))
      this.forward(this.client, {
        jsonrpc: '2.0',
        id,
        error: { code: ErrorCode.InvalidRequest, message: text },
      })
  }

  /**
   * A task-augmented request's output comes back later through `tasks/result`, past the record
   * of results that budgets and trust labels rely on: it is refused, unsent (`tool` names a
   * call's tool).
   */
  private refuseTask(request: JSONRPCRequest, tool?: string): void {
    this.forward(this.client, {
      jsonrpc: '2.0',
      id: request.id,
      error: taskRefusal(request.method, tool),
    })
  }

  private async call(request: JSONRPCRequest): Promise<void> {
    const params = asRecord(request.params)
    const tool = toolNameOf(params)
    this.inFlight.set(request.id, { kind: 'authorizing', cancelled: false })
    const decision = await this.guard.authorize(tool, params.arguments, String(request.id))
    const cancelled = this.authorized(request.id)
    if (!decision.allowed) {
      if (!cancelled)
        this.forward(this.client, { jsonrpc: '2.0', id: request.id, result: decision.result })
      return
    }
    if (cancelled) {
      decision.fail(new Error('The client cancelled the call.'))
      return
    }
    const forwarded: JSONRPCRequest = {
      ...request,
      params: { ...params, name: decision.serverTool, arguments: decision.args },
    }
    this.sendGuarded(forwarded, decision, (error) => {
      const text = `The MCP server could not be reached: ${String(error)}`
      this.forward(this.client, {
        jsonrpc: '2.0',
        id: request.id,
        error: { code: ErrorCode.InternalError, message: text },
      })
    })
  }

  /**
   * A resource request: forwarded once the guard allows it (the URI checked, the run's budgets),
   * its answer then reported to the guard; else answered with an error naming the issues.
   */
  private async resource(request: JSONRPCRequest, authorize: AuthorizeMcpResource): Promise<void> {
    this.inFlight.set(request.id, { kind: 'authorizing', cancelled: false })
    const params = asRecord(request.params)
    const prompt = request.method === PROMPT_GET
    const decision = await authorize(request.method, prompt ? params.name : params.uri)
    if (this.authorized(request.id)) {
      if (decision.allowed) decision.fail(new Error('The client cancelled the request.'))
      return
    }
    if (!decision.allowed) {
      this.forward(this.client, {
        jsonrpc: '2.0',
        id: request.id,
        error: {
          code: ErrorCode.InvalidParams,
          message: decision.message,
          data: { issues: decision.issues },
        },
      })
      return
    }
    const name =
      prompt && typeof params.name === 'string'
        ? this.guard.names.unqualify(params.name)
        : undefined
    const sent = name === undefined ? request : { ...request, params: { ...params, name } }
    this.sendGuarded(sent, decision, (error) => {
      this.onError(error instanceof Error ? error : new Error(String(error)))
    })
  }

  /** A request's authorization is over: it leaves the in-flight list; true if it was cancelled. */
  private authorized(id: RequestId): boolean {
    const request = this.inFlight.get(id)
    this.inFlight.delete(id)
    return request?.kind === 'authorizing' && request.cancelled
  }

  /** Sends an allowed request on; its answer (or the failure to send it) goes to `answer`. */
  private sendGuarded(
    request: JSONRPCRequest,
    answer: GuardedAnswer,
    unsent: (error: unknown) => void,
  ): void {
    const guarded = { kind: 'guarded', answer } as const
    this.inFlight.set(request.id, guarded, progressToken(request))
    this.server.send(request).catch((error: unknown) => {
      const current = this.inFlight.get(request.id)
      // cancelled: already recorded, no answer awaited; gone: the server closed and failed it
      const cancelled = current?.kind === 'cancelled' && current.answer === answer
      if (current === guarded || cancelled) {
        this.inFlight.delete(request.id)
      }
      if (current === guarded) answer.fail(error)
      if (current === guarded || current === undefined) unsent(error)
    })
  }

  /** Sends on; `related` names the client request a server notification belongs to (HTTP streams). */
  private forward(target: Transport, message: JSONRPCMessage, related?: RequestId): void {
    const options = related === undefined ? undefined : { relatedRequestId: related }
    target.send(message, options).catch((error: unknown) => {
      this.onError(error instanceof Error ? error : new Error(String(error)))
    })
  }
}
