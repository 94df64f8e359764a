// A notes MCP server over stdio whose read_note description comes from the command line, so a
// test can start it once as reviewed and once changed (a rug pull between sessions).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'

const description = process.argv[2] ?? 'Read a note.'
const server = new McpServer({ name: 'notes', version: '1.0.0' })
server.registerTool('read_note', { description, inputSchema: { path: z.string() } }, async () => ({
  content: [{ type: 'text', text: 'a note' }],
}))
server.registerTool(
  'delete_note',
  { description: 'Delete a note.', inputSchema: { path: z.string() } },
  async () => ({ content: [{ type: 'text', text: 'deleted' }] }),
)
await server.connect(new StdioServerTransport())
