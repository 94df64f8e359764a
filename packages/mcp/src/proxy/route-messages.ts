import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import {
  ErrorCode,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js'
import type { AuthorizeMcpResource } from '../guard/authorize-mcp-resource.js'
import type { AllowedMcpCall, McpCallGuard } from '../guard/create-mcp-call-guard.js'
import { taskRefusalText } from '../guard/denial-result.js'
import { allowedToolList, asRecord, RESOURCE_METHODS } from '../guard/message-fields.js'

function keyOf(id: RequestId): string {
  return `${typeof id}:${String(id)}`
}

function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || typeof value === 'number'
}

/**
 * Routes JSON-RPC messages between the client side and the server side of the proxy. Only
 * `tools/list` results (filtered), `tools/call` requests (guarded) and, with `resources:
 * 'workspace'`, `resources/read` and `resources/subscribe` requests (checked) are touched; every
 * other message — resources otherwise, prompts, notifications, progress, cancellation,
 * server-to-client requests — is forwarded as it is, ids unchanged.
 */
export class MessageRouter {
  /** `tools/list` requests forwarded, by client request id. */
  private readonly lists = new Set<string>()
  /** Allowed calls and resource requests forwarded and not yet answered, by client request id. */
  private readonly calls = new Map<string, Pick<AllowedMcpCall, 'finish' | 'fail'>>()
  /** Calls being authorized; true once the client cancelled it. */
  private readonly authorizing = new Map<string, boolean>()
  /** Client requests waiting for the server, by progress token, so progress can name its request. */
  private readonly progress = new Map<string, RequestId>()

  constructor(
    private readonly guard: McpCallGuard,
    private readonly client: Transport,
    private readonly server: Transport,
    private readonly onError: (error: Error) => void,
  ) {}

  /** A message from the client. */
  fromClient(message: JSONRPCMessage): void {
    const method = asRecord(message).method
    if (method === 'tools/call') {
      if (!isJSONRPCRequest(message)) this.refuseMalformed(message, method)
      else if (asRecord(message.params).task === undefined) void this.call(message)
      else this.refuseTask(message)
      return
    }
    const authorize = this.guard.authorizeResource
    if (authorize !== undefined && typeof method === 'string' && RESOURCE_METHODS.has(method)) {
      if (!isJSONRPCRequest(message)) this.refuseMalformed(message, method)
      else void this.resource(message, authorize)
      return
    }
    if (isJSONRPCRequest(message)) this.trackProgress(message)
    if (isJSONRPCRequest(message) && message.method === 'tools/list') {
      this.lists.add(keyOf(message.id))
    } else if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') {
      this.cancelled(asRecord(message.params).requestId)
    }
    this.forward(this.server, message)
  }

  /** A message from the wrapped server. */
  fromServer(message: JSONRPCMessage): void {
    if (isJSONRPCNotification(message) && message.method === 'notifications/progress') {
      const token = asRecord(message.params).progressToken
      const related = isRequestId(token) ? this.progress.get(keyOf(token)) : undefined
      this.forward(this.client, message, related)
      return
    }
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      this.untrackProgress(message.id)
      const key = message.id === undefined ? undefined : keyOf(message.id)
      if (key !== undefined && this.lists.delete(key) && isJSONRPCResultResponse(message)) {
        this.forward(this.client, {
          ...message,
          result: allowedToolList(message.result, this.guard),
        })
        return
      }
      const call = key === undefined ? undefined : this.calls.get(key)
      if (key !== undefined && call !== undefined) {
        this.calls.delete(key)
        if (isJSONRPCResultResponse(message)) call.finish(message.result)
        else call.fail(new Error(message.error.message))
      }
    }
    this.forward(this.client, message)
  }

  /** The server is gone: calls still waiting for it will never finish. */
  serverClosed(): void {
    for (const call of this.calls.values()) call.fail(new Error('The MCP server closed.'))
    this.calls.clear()
  }

  private trackProgress(request: JSONRPCRequest): void {
    const token = asRecord(asRecord(request.params)._meta).progressToken
    if (isRequestId(token)) this.progress.set(keyOf(token), request.id)
  }

  private untrackProgress(id: RequestId | undefined): void {
    if (id === undefined) return
    for (const [token, requestId] of this.progress) {
      if (requestId === id) this.progress.delete(token)
    }
  }

  private cancelled(requestId: unknown): void {
    if (!isRequestId(requestId)) return
    const key = keyOf(requestId)
    if (this.authorizing.has(key)) this.authorizing.set(key, true)
    const call = this.calls.get(key)
    if (call !== undefined) {
      this.calls.delete(key)
      this.untrackProgress(requestId)
      call.fail(new Error('The client cancelled the call.'))
    }
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
   * A task-augmented call's output comes back later through `tasks/result`, past the record of
   * results that budgets and trust labels rely on: it is refused, unsent.
   */
  private refuseTask(request: JSONRPCRequest): void {
    const name = asRecord(request.params).name
    const tool = typeof name === 'string' ? name : ''
    const message = taskRefusalText(tool)
    this.forward(this.client, {
      jsonrpc: '2.0',
      id: request.id,
      error: { code: ErrorCode.InvalidRequest, message },
    })
  }

  private async call(request: JSONRPCRequest): Promise<void> {
    const key = keyOf(request.id)
    const params = asRecord(request.params)
    const tool = typeof params.name === 'string' ? params.name : ''
    this.authorizing.set(key, false)
    const decision = await this.guard.authorize(tool, params.arguments, String(request.id))
    const cancelled = this.authorizing.get(key) === true
    this.authorizing.delete(key)
    if (!decision.allowed) {
      if (!cancelled)
        this.forward(this.client, { jsonrpc: '2.0', id: request.id, result: decision.result })
      return
    }
    if (cancelled) {
      decision.fail(new Error('The client cancelled the call.'))
      return
    }
    this.calls.set(key, decision)
    this.trackProgress(request)
    const forwarded: JSONRPCRequest = {
      ...request,
      params: { ...params, arguments: decision.args },
    }
    this.server.send(forwarded).catch((error: unknown) => {
      this.calls.delete(key)
      decision.fail(error)
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
    const key = keyOf(request.id)
    this.authorizing.set(key, false)
    const decision = await authorize(request.method, asRecord(request.params).uri)
    const cancelled = this.authorizing.get(key) === true
    this.authorizing.delete(key)
    if (cancelled) {
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
    this.calls.set(key, decision)
    this.trackProgress(request)
    this.server.send(request).catch((error: unknown) => {
      this.calls.delete(key)
      decision.fail(error)
      this.onError(error instanceof Error ? error : new Error(String(error)))
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
