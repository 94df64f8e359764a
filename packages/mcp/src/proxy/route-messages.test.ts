import { tmpdir } from 'node:os'
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it } from 'vitest'
import { createMcpCallGuard } from '../guard/create-mcp-call-guard.js'
import { shellPolicy } from '../test-utils/shell-server.js'
import { MessageRouter } from './route-messages.js'

interface Recorded extends Transport {
  readonly sent: [JSONRPCMessage, TransportSendOptions | undefined][]
}

function recorder(): Recorded {
  const sent: [JSONRPCMessage, TransportSendOptions | undefined][] = []
  return {
    sent,
    start: async () => {},
    close: async () => {},
    send: async (message, options) => {
      sent.push([message, options])
    },
  }
}

async function setup() {
  const guard = await createMcpCallGuard({ policy: shellPolicy(tmpdir()) })
  const client = recorder()
  const server = recorder()
  const router = new MessageRouter(guard, client, server, () => {})
  return { guard, client, server, router }
}

function call(id: number, command: string, meta?: Record<string, unknown>): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'shell',
      arguments: { command },
      ...(meta === undefined ? {} : { _meta: meta }),
    },
  }
}

describe('MessageRouter', () => {
  it('should tie a server’s progress to the client request that asked for it', async () => {
    const { client, server, router } = await setup()
    router.fromClient(call(7, 'ls', { progressToken: 'token-7' }))
    await expect.poll(() => server.sent.length).toBe(1)
    router.fromServer({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 'token-7', progress: 1 },
    })
    expect(client.sent.at(-1)?.[1]).toEqual({ relatedRequestId: 7 })
    router.fromServer({ jsonrpc: '2.0', id: 7, result: { content: [] } })
    router.fromServer({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 'token-7', progress: 2 },
    })
    expect(client.sent.at(-1)?.[1]).toBeUndefined()
  })

  it('should refuse a task-based tool call with an error, unsent', async () => {
    const { client, server, router } = await setup()
    router.fromClient({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'shell', arguments: { command: 'ls' }, task: { ttl: 60_000 } },
    })
    expect(server.sent).toEqual([])
    expect(client.sent.map(([message]) => message)).toEqual([
      {
        jsonrpc: '2.0',
        id: 3,
        error: { code: -32600, message: expect.stringContaining('task-based tool calls') },
      },
    ])
  })

  it('should forward no tools/call that is not a well-formed request', async () => {
    const guard = await createMcpCallGuard({ policy: shellPolicy(tmpdir()) })
    const client = recorder()
    const server = recorder()
    const errors: Error[] = []
    const router = new MessageRouter(guard, client, server, (error) => errors.push(error))
    const params = { name: 'shell', arguments: { command: 'ls' } }
    const malformed = [
      { jsonrpc: '2.0', method: 'tools/call', params },
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params, extra: true },
      { jsonrpc: '1.0', id: 5, method: 'tools/call', params },
    ]
    for (const message of malformed) router.fromClient(message as unknown as JSONRPCMessage)
    expect(server.sent).toEqual([])
    expect(errors).toHaveLength(3)
    expect(client.sent.map(([message]) => message)).toEqual(
      [4, 5].map((id) => ({
        jsonrpc: '2.0',
        id,
        error: { code: -32600, message: expect.stringContaining('not a valid JSON-RPC request') },
      })),
    )
  })

  it('should filter tools/list results and leave other results alone', async () => {
    const { client, router } = await setup()
    router.fromClient({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
    router.fromClient({ jsonrpc: '2.0', id: 2, method: 'prompts/list' })
    const tools = [{ name: 'shell' }, { name: 'delete_everything' }]
    router.fromServer({ jsonrpc: '2.0', id: 1, result: { tools, nextCursor: 'next' } })
    router.fromServer({ jsonrpc: '2.0', id: 2, result: { tools } })
    expect(client.sent.map(([message]) => message)).toEqual([
      { jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'shell' }], nextCursor: 'next' } },
      { jsonrpc: '2.0', id: 2, result: { tools } },
    ])
  })

  it('should send nothing for a call the client cancelled while it was being authorized', async () => {
    const { client, server, router, guard } = await setup()
    router.fromClient(call(3, 'ls'))
    router.fromClient({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 3 },
    })
    router.fromClient(call(4, 'rm -rf /'))
    await expect.poll(() => client.sent.length).toBe(1)
    expect(client.sent[0]?.[0]).toMatchObject({ id: 4, result: { isError: true } })
    expect(server.sent.map(([message]) => (message as { method: string }).method)).toEqual([
      'notifications/cancelled',
    ])
    expect(Object.values(guard.guard.snapshot().status)).not.toContain('running')
  })
})
