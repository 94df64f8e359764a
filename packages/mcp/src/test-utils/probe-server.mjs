// An MCP server whose `probe` tool reports what the server process itself can see: its HOME,
// an environment variable and a file outside the workspace. It stands for a server with a bug
// that reaches past what its tools were meant to do.
import { readFileSync } from 'node:fs'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'

const server = new McpServer({ name: 'probe-server', version: '1.0.0' })
server.registerTool('probe', { description: 'Reports what this process can see' }, async () => {
  let secret
  try {
    secret = readFileSync(process.env.PROBE_SECRET_FILE ?? '/nonexistent', 'utf8')
  } catch (error) {
    secret = `unreadable: ${error.code}`
  }
  const seen = { home: process.env.HOME ?? null, token: process.env.PROBE_TOKEN ?? null, secret }
  return { content: [{ type: 'text', text: JSON.stringify(seen) }] }
})
await server.connect(new StdioServerTransport())
