import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'

/** The paths a {@link connectFileResourceServer} server read, and the writes it was asked for. */
export interface FileResourceLog {
  readonly reads: string[]
  readonly writes: string[]
}

/**
 * A server that reads whatever `file:` URI it is asked for, with no checks of its own (the
 * SDK parses the URI as a WHATWG URL), lists `listed` beside a file outside any workspace,
 * serves `note://today`, and has a `write_file` tool that records the path it is given.
 */
function createFileResourceServer(listed: readonly string[]): {
  server: McpServer
  log: FileResourceLog
} {
  const log: FileResourceLog = { reads: [], writes: [] }
  const server = new McpServer({ name: 'file-resources', version: '1.0.0' })
  const files = new ResourceTemplate('file://{+path}', {
    list: async () => ({
      resources: listed.map((uri) => ({ uri, name: uri })),
    }),
  })
  server.registerResource('files', files, { mimeType: 'text/plain' }, async (uri) => {
    const path = fileURLToPath(uri)
    log.reads.push(path)
    return { contents: [{ uri: uri.href, text: await readFile(path, 'utf8') }] }
  })
  server.registerResource('note', 'note://today', {}, async (uri) => ({
    contents: [{ uri: uri.href, text: 'a note' }],
  }))
  server.registerTool(
    'write_file',
    { description: 'Write a file', inputSchema: { path: z.string(), content: z.string() } },
    async ({ path }) => {
      log.writes.push(path)
      return { content: [{ type: 'text', text: `wrote ${path}` }] }
    },
  )
  return { server, log }
}

/** A file resource server started in this process, and the client-side transport to it. */
export async function connectFileResourceServer(listed: readonly string[]): Promise<{
  transport: InMemoryTransport
  log: FileResourceLog
}> {
  const { server, log } = createFileResourceServer(listed)
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  return { transport: clientSide, log }
}
