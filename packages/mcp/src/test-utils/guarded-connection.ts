import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import {
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { guardMcpClient } from '../client/guard-mcp-client.js'
import { guardMcpTransport } from '../client/guard-mcp-transport.js'
import type { McpGuardOptions } from '../guard/create-mcp-call-guard.js'
import { createMcpGuardProxy } from '../proxy/create-mcp-guard-proxy.js'

/** A client behind the guard, what it was told, and how to close it. */
export interface GuardedConnection {
  readonly client: Client
  /** The `params` of each `notifications/message` the client got. */
  readonly notices: unknown[]
  /** How many `notifications/tools/list_changed` the client got. */
  readonly changes: { count: number }
  close(): Promise<void>
}

/** Connects an SDK client to a server's client-side transport through one of the guards. */
export type ConnectGuarded = (
  server: Transport,
  options: McpGuardOptions,
) => Promise<GuardedConnection>

function watchedClient(): Omit<GuardedConnection, 'close'> {
  const client = new Client({ name: 'guarded-test', version: '1.0.0' })
  const notices: unknown[] = []
  const changes = { count: 0 }
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    notices.push(notification.params)
  })
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes.count += 1
  })
  return { client, notices, changes }
}

const throughProxy: ConnectGuarded = async (server, options) => {
  const [clientSide, proxySide] = InMemoryTransport.createLinkedPair()
  const proxy = await createMcpGuardProxy({ ...options, client: proxySide, server })
  const watched = watchedClient()
  await watched.client.connect(clientSide)
  return { ...watched, close: () => watched.client.close().then(() => proxy.close()) }
}

const throughClientGuard: ConnectGuarded = async (server, options) => {
  const watched = watchedClient()
  await watched.client.connect(server)
  await guardMcpClient(watched.client, options)
  return { ...watched, close: () => watched.client.close() }
}

const throughTransportGuard: ConnectGuarded = async (server, options) => {
  const watched = watchedClient()
  await watched.client.connect(await guardMcpTransport(server, options))
  return { ...watched, close: () => watched.client.close() }
}

/** The three ways to put the guard in front of a server, by name, for `describe.each`. */
export const GUARDED_CONNECTIONS: readonly [string, ConnectGuarded][] = [
  ['createMcpGuardProxy', throughProxy],
  ['guardMcpClient', throughClientGuard],
  ['guardMcpTransport', throughTransportGuard],
]
