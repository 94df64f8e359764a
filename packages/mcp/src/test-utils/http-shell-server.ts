import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { createShellServer, type ShellServerLog } from './shell-server.js'

/** The shell server over Streamable HTTP on a local port (one session). */
export async function startHttpShellServer(): Promise<{
  url: string
  log: ShellServerLog
  close(): Promise<void>
}> {
  const { server, log } = createShellServer()
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() })
  await server.connect(transport)
  const http = createServer((request, response) => {
    void transport.handleRequest(request, response)
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const { port } = http.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    log,
    close: async () => {
      await server.close()
      http.closeAllConnections()
      await new Promise((resolve) => http.close(resolve))
    },
  }
}
