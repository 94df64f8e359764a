// An unguarded MCP pass-through built from the SDK's own transports: the baseline plan-mcp is
// measured against. `node mcp-pass-through.ts stdio -- <server argv>` serves its own stdio;
// `node mcp-pass-through.ts http -- <server argv>` serves Streamable HTTP on a free loopback
// port (printed on stderr as `listening <port>`), one server per session.
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'

const [mode, separator, command, ...args] = process.argv.slice(2)
if ((mode !== 'stdio' && mode !== 'http') || separator !== '--' || command === undefined) {
  process.stderr.write('usage: mcp-pass-through.ts stdio|http -- <server argv>\n')
  process.exit(2)
}

/** Pipes every message of `client` to `server` and back; both started. */
async function pipe(client: Transport, server: Transport): Promise<void> {
  client.onmessage = (message) => void server.send(message)
  server.onmessage = (message) => void client.send(message)
  client.onclose = () => void server.close()
  server.onclose = () => void client.close()
  await server.start()
  await client.start()
}

const serverTransport = () =>
  new StdioClientTransport({ command: command as string, args, stderr: 'ignore' })

if (mode === 'stdio') {
  await pipe(new StdioServerTransport(), serverTransport())
} else {
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  const http = createServer((request, response) => {
    const id = request.headers['mcp-session-id']
    const known = typeof id === 'string' ? sessions.get(id) : undefined
    if (known !== undefined) return void known.handleRequest(request, response)
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport),
    })
    void pipe(transport, serverTransport()).then(() => transport.handleRequest(request, response))
  })
  http.listen(0, '127.0.0.1', () => {
    process.stderr.write(`listening ${(http.address() as AddressInfo).port}\n`)
  })
}
