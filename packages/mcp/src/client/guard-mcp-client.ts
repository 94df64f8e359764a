import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { createMcpCallGuard, type McpGuardOptions } from '../guard/create-mcp-call-guard.js'

type CallTool = Client['callTool']
type ListTools = Client['listTools']

/**
 * Guards an MCP SDK `Client` in place: `listTools` returns only the tools the policy lists
 * (descriptions unchanged), and every `callTool` is authorized by the `@plan` guard first. A
 * refused call is not sent; it resolves to a tool result with `isError: true` naming the
 * issues and hints, as a server's own error would. An allowed call is sent with the guard's
 * arguments (paths as checked on disk), and its result is recorded for budgets and trust.
 *
 * Everything built on the client's `listTools` and `callTool` gets the guard, such as
 * `loadMcpTools(serverName, client)` from `@langchain/mcp-adapters`. For clients that take a
 * transport instead (the AI SDK's `createMCPClient`), use {@link guardMcpTransport}.
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
  const listTools: ListTools = client.listTools.bind(client)
  const callTool: CallTool = client.callTool.bind(client)

  const guardedList: ListTools = async (params, requestOptions) => {
    const result = await listTools(params, requestOptions)
    return { ...result, tools: result.tools.filter((tool) => callGuard.isToolAllowed(tool.name)) }
  }

  const guardedCall: CallTool = async (params, resultSchema, requestOptions) => {
    const decision = await callGuard.authorize(params.name, params.arguments)
    if (!decision.allowed) return decision.result
    let result: Awaited<ReturnType<CallTool>>
    try {
      result = await callTool({ ...params, arguments: decision.args }, resultSchema, requestOptions)
    } catch (error) {
      decision.fail(error)
      throw error
    }
    decision.finish(result)
    return result
  }

  Object.defineProperty(client, 'listTools', {
    value: guardedList,
    configurable: true,
    writable: true,
  })
  Object.defineProperty(client, 'callTool', {
    value: guardedCall,
    configurable: true,
    writable: true,
  })
  return client
}
