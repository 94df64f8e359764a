import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import {
  createMcpCallGuard,
  type McpCallGuard,
  type McpGuardOptions,
} from '../guard/create-mcp-call-guard.js'
import { MessageRouter } from '../proxy/route-messages.js'

/** A client transport with the guard inside; `guard` is the session's guard. */
export interface GuardedMcpTransport extends Transport {
  readonly guard: McpCallGuard
}

class GuardedTransport implements GuardedMcpTransport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  private readonly router: MessageRouter

  constructor(
    private readonly inner: Transport,
    readonly guard: McpCallGuard,
  ) {
    // the client side of the router delivers to whoever holds this transport
    const toCaller: Transport = {
      start: async () => {},
      close: async () => {},
      send: async (message) => this.onmessage?.(message),
    }
    this.router = new MessageRouter(guard, toCaller, inner, (error) => this.onerror?.(error))
    inner.onmessage = (message) => this.router.fromServer(message)
    inner.onerror = (error) => this.onerror?.(error)
    inner.onclose = () => {
      this.router.serverClosed()
      this.onclose?.()
    }
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId
  }

  start(): Promise<void> {
    return this.inner.start()
  }

  async send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    this.router.fromClient(message)
  }

  close(): Promise<void> {
    return this.inner.close()
  }
}

/**
 * Wraps a client transport (stdio, Streamable HTTP, or any `Transport`) so that whatever
 * client runs over it — the MCP SDK's `Client`, the AI SDK's `createMCPClient({ transport })` —
 * sees only the tools the policy lists, as pinned and with the policy's argument schema, and has
 * every `tools/call` authorized by the `@plan` guard; refused calls are answered with `isError` tool results and never reach the server.
 *
 * @example
 * ```ts
 * import { createMCPClient } from '@ai-sdk/mcp'
 *
 * const transport = await guardMcpTransport(
 *   new StdioClientTransport({ command: 'mcp-server-filesystem', args: ['/srv/repo'] }),
 *   { policy },
 * )
 * const mcp = await createMCPClient({ transport })
 * const tools = await mcp.tools()
 * ```
 */
export async function guardMcpTransport(
  transport: Transport,
  options: McpGuardOptions,
): Promise<GuardedMcpTransport> {
  return new GuardedTransport(transport, await createMcpCallGuard(options))
}
