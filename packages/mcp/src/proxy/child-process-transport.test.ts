import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { ChildProcessTransport } from './child-process-transport.js'
import { spawnServerProcess } from './spawn-server.js'

const TIMEOUT = 60_000
const BIG = 11 * 1024 * 1024

/**
 * A server that answers `small` at once, `hold` never, and the others with a line of over
 * 10 MiB: its id last (`tail`, as the SDK writes), first (`head`) or in the middle (`hidden`).
 */
const server = `
const big = 'x'.repeat(${BIG})
let rest = ''
process.stdin.on('data', (chunk) => {
  rest += chunk
  let end
  while ((end = rest.indexOf('\\n')) !== -1) {
    const request = JSON.parse(rest.slice(0, end))
    rest = rest.slice(end + 1)
    const id = JSON.stringify(request.id)
    const lines = {
      small: '{"result":{"ok":true},"jsonrpc":"2.0","id":' + id + '}',
      tail: '{"result":{"text":"' + big + '"},"jsonrpc":"2.0","id":' + id + '}',
      head: '{"jsonrpc":"2.0","id":' + id + ',"result":{"text":"' + big + '"}}',
      hidden: '{"result":{"a":"' + big + '"},"id":' + id + ',"jsonrpc":"2.0","z":"' + big.slice(0, 600) + '"}',
    }
    const line = lines[request.method]
    if (line !== undefined) process.stdout.write(line + '\\n')
  }
})
`

interface Started {
  readonly transport: ChildProcessTransport
  readonly messages: JSONRPCMessage[]
  readonly errors: string[]
  readonly closed: Promise<void>
  next(count: number): Promise<void>
}

async function start(): Promise<Started> {
  const transport = new ChildProcessTransport([process.execPath, '-e', server], spawnServerProcess)
  const messages: JSONRPCMessage[] = []
  const errors: string[] = []
  const waiters: (() => void)[] = []
  transport.onmessage = (message) => {
    messages.push(message)
    for (const wake of waiters.splice(0)) wake()
  }
  transport.onerror = (error) => errors.push(error.message)
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve
  })
  const next = async (count: number) => {
    while (messages.length < count) await new Promise<void>((wake) => waiters.push(wake))
  }
  await transport.start()
  return { transport, messages, errors, closed, next }
}

function request(id: number | string, method: string): JSONRPCMessage {
  return { jsonrpc: '2.0', id, method }
}

let running: ChildProcessTransport | undefined
afterEach(async () => {
  await running?.close()
  running = undefined
})

describe('ChildProcessTransport with answers over 10 MiB', () => {
  it.each(['tail', 'head'])(
    'should answer the request whose answer is too long (id %s) and read the next',
    async (method) => {
      const started = await start()
      running = started.transport
      await started.transport.send(request(1, 'hold'))
      await started.transport.send(request('two', method))
      await started.transport.send(request(3, 'small'))
      await started.next(2)
      expect(started.messages).toEqual([
        { jsonrpc: '2.0', id: 'two', error: expect.objectContaining({ code: -32603 }) },
        { jsonrpc: '2.0', id: 3, result: { ok: true } },
      ])
      expect(started.errors).toEqual([
        'a server message is longer than 10485760 bytes; it was skipped',
      ])
    },
    TIMEOUT,
  )

  it(
    'should answer the one request in flight when the line names no id at its ends',
    async () => {
      const started = await start()
      running = started.transport
      await started.transport.send(request(5, 'hidden'))
      await started.next(1)
      expect(started.messages).toEqual([
        { jsonrpc: '2.0', id: 5, error: expect.objectContaining({ code: -32603 }) },
      ])
    },
    TIMEOUT,
  )

  it(
    'should close the server when two requests are in flight and the line names neither',
    async () => {
      const started = await start()
      running = started.transport
      await started.transport.send(request(1, 'hold'))
      await started.transport.send(request(2, 'hidden'))
      await started.closed
      expect(started.messages).toEqual([])
      expect(started.transport.process).toBeUndefined()
    },
    TIMEOUT,
  )

  it(
    'should not count a cancelled request as in flight',
    async () => {
      const started = await start()
      running = started.transport
      await started.transport.send(request(1, 'hold'))
      await started.transport.send({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 1 },
      })
      await started.transport.send(request(2, 'hidden'))
      await started.next(1)
      expect(started.messages).toEqual([
        { jsonrpc: '2.0', id: 2, error: expect.objectContaining({ code: -32603 }) },
      ])
    },
    TIMEOUT,
  )
})
