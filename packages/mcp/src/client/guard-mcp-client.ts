import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import {
  ErrorCode,
  type JSONRPCMessage,
  ListToolsResultSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js'
import type { AuthorizeMcpResource } from '../guard/authorize-mcp-resource.js'
import {
  createMcpCallGuard,
  type McpCallGuard,
  type McpGuardOptions,
} from '../guard/create-mcp-call-guard.js'
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

/** `Client.request` without its generic: the guard handles every method alike. */
type Request = (
  request: { method: string; params?: Record<string, unknown> },
  resultSchema: unknown,
  options?: { task?: unknown },
) => Promise<unknown>

/**
 * A task-augmented request ends in `tasks/result`, past the guard's record of results: refused
 * with its issue (`tool` names a call's tool).
 */
function refuseTask(method: string, tool?: string): never {
  const { code, message, data } = taskRefusal(method, tool)
  throw new McpError(code, message, data)
}

/** Whether a request is made as a task, by request option or by params. */
function isTask(options: { task?: unknown } | undefined, params: Record<string, unknown>): boolean {
  return options?.task !== undefined || params.task !== undefined
}

/** Most pages of tools listed before a call: a server whose cursors never end is not followed. */
const MAX_TOOL_PAGES = 100

/** Every page of the server's tools, through the guard's listing (so pins are checked). */
async function listAllTools(callGuard: McpCallGuard, send: Request, notify: Notify): Promise<void> {
  let cursor: string | undefined
  const cursors = new Set<string>()
  do {
    // a repeated cursor or too many pages: what was listed so far decides
    if (cursor !== undefined && (cursors.has(cursor) || cursors.size >= MAX_TOOL_PAGES)) return
    if (cursor !== undefined) cursors.add(cursor)
    const page = await send(
      { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
      ListToolsResultSchema,
    )
    const { withheld } = callGuard.listTools(page)
    if (withheld.length > 0) notify(withheldNotice(withheld))
    const next = asRecord(page).nextCursor
    cursor = typeof next === 'string' ? next : undefined
  } while (cursor !== undefined)
}

/**
 * One guarded `tools/call` through the client's own `request`; a pinned tool not listed since
 * the server's tools changed is listed (all pages) first, so its definition is checked.
 */
async function guardedToolCall(
  callGuard: McpCallGuard,
  send: Request,
  notify: Notify,
  [request, resultSchema, options]: Parameters<Request>,
): Promise<unknown> {
  const params = asRecord(request.params)
  const tool = toolNameOf(params)
  if (isTask(options, params)) refuseTask(request.method, tool)
  if (callGuard.needsListing(tool)) await listAllTools(callGuard, send, notify)
  const decision = await callGuard.authorize(tool, params.arguments)
  if (!decision.allowed) return decision.result
  let result: unknown
  try {
    result = await send(
      { ...request, params: { ...params, name: decision.serverTool, arguments: decision.args } },
      resultSchema,
      options,
    )
  } catch (error) {
    decision.fail(error)
    throw error
  }
  return decision.finish(result)
}

/**
 * One guarded `resources/read` or `resources/subscribe` through the client's own `request`; a
 * task-augmented one is refused with an `InvalidRequest` error, unsent.
 */
async function guardedResource(
  callGuard: McpCallGuard,
  authorize: AuthorizeMcpResource,
  send: Request,
  [request, resultSchema, options]: Parameters<Request>,
): Promise<unknown> {
  const params = asRecord(request.params)
  // Its content would come back through `tasks/result`, past the record of resource reads.
  if (isTask(options, params)) refuseTask(request.method)
  const prompt = request.method === PROMPT_GET
  const decision = await authorize(request.method, prompt ? params.name : params.uri)
  if (!decision.allowed)
    throw new McpError(ErrorCode.InvalidParams, decision.message, { issues: decision.issues })
  const name = prompt ? callGuard.names.unqualify(String(params.name)) : undefined
  let result: unknown
  try {
    result = await send(
      name === undefined ? request : { ...request, params: { ...params, name } },
      resultSchema,
      options,
    )
  } catch (error) {
    decision.fail(error)
    throw error
  }
  return decision.finish(result)
}

/** Delivers a notification to the client as if the server had sent it. */
type Notify = (notification: { method: string; params: Record<string, unknown> }) => void

/**
 * Watches the client's transport: `notifications/tools/list_changed` makes pinned tools wait
 * for a new listing; returns how to deliver the guard's own notices to the client's handlers
 * (nothing is delivered before the client is connected).
 */
function watchTransport(client: Client, callGuard: McpCallGuard): Notify {
  const transport: Transport | undefined = client.transport
  const deliver = transport?.onmessage
  if (transport === undefined || deliver === undefined) return () => {}
  transport.onmessage = (message: JSONRPCMessage, extra) => {
    if (asRecord(message).method === 'notifications/tools/list_changed') callGuard.toolsChanged()
    deliver.call(transport, message, extra)
  }
  return (notification) => deliver.call(transport, { jsonrpc: '2.0', ...notification })
}

/**
 * Guards an MCP SDK `Client` in place: `tools/list` answers list only the tools the policy
 * lists whose definitions match their pins, with the policy's argument schema (a withheld tool
 * is announced to the client's handlers as a `notifications/message`), and every `tools/call`
 * is authorized by the `@plan` guard first; `prompts/get` and resources follow the policy's
 * `mcp` section. A refused call is not sent; it resolves to a tool result with `isError: true` naming
 * the issues and hints, as a server's own error would. An allowed call is sent with the guard's
 * arguments (paths as checked on disk), and its result is recorded for budgets and trust.
 *
 * The guard sits in the client's `request`, which every method of the client goes through:
 * `listTools`, `callTool`, `client.request({ method: 'tools/call', … })` and the experimental
 * streams alike, so everything built on the client gets it, such as
 * `loadMcpTools(serverName, client)` from `@langchain/mcp-adapters`. Task-based tool calls, and
 * task-augmented resource reads under `resources: 'workspace'`, are refused with an
 * `InvalidRequest` error, unsent. For clients that take a transport instead (the
 * AI SDK's `createMCPClient`), use {@link guardMcpTransport}.
 *
 * @example
 * ```ts
 * const client = new Client({ name: 'agent', version: '1.0.0' })
 * await client.connect(new StdioClientTransport({ command: 'mcp-server-filesystem', args: ['/srv/repo'] }))
 * await guardMcpClient(client, { policy })
 * const result = await client.callTool({ name: 'read_text_file', arguments: { path: '../.ssh/id_rsa' } })
 * result.isError // true: path_outside_workspace
 * ```
 */
export async function guardMcpClient<C extends Client>(
  client: C,
  options: McpGuardOptions,
): Promise<C> {
  const callGuard = await createMcpCallGuard(options)
  const send = (client.request as unknown as Request).bind(client)
  const notify = watchTransport(client, callGuard)

  const guardedRequest: Request = async (...args) => {
    const [request] = args
    if (request.method === 'tools/call') return guardedToolCall(callGuard, send, notify, args)
    if (request.method === PROMPT_GET)
      return guardedResource(callGuard, (_, name) => callGuard.authorizePrompt(name), send, args)
    const authorize = callGuard.authorizeResource
    if (authorize !== undefined && RESOURCE_METHODS.has(request.method))
      return guardedResource(callGuard, authorize, send, args)
    if (request.method === 'completion/complete') {
      const completion = promptCompletion(asRecord(request.params), callGuard)
      if ('issue' in completion)
        throw new McpError(ErrorCode.InvalidParams, completion.issue.message, {
          issues: [completion.issue],
        })
      return send({ ...request, params: completion.params }, args[1], args[2])
    }
    const result = await send(...args)
    if (request.method === 'prompts/list') return allowedPromptList(result, callGuard)
    if (request.method !== 'tools/list') return result
    const listed = callGuard.listTools(result)
    if (listed.withheld.length > 0) notify(withheldNotice(listed.withheld))
    return listed.result
  }

  Object.defineProperty(client, 'request', {
    value: guardedRequest,
    configurable: true,
    writable: true,
  })
  return client
}
