// An MCP server over stdio that reads whatever file: URI it is asked for, with no checks of
// its own: it stands for a server whose resources a model may pick.
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'

const server = new McpServer({ name: 'file-resources', version: '1.0.0' })
const files = new ResourceTemplate('file://{+path}', { list: undefined })
server.registerResource('files', files, { mimeType: 'text/plain' }, async (uri) => ({
  contents: [{ uri: uri.href, text: await readFile(fileURLToPath(uri), 'utf8') }],
}))
await server.connect(new StdioServerTransport())
