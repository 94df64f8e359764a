// An MCP server over stdio with one tool, `slow_write`, for the crash tests: each call appends
// its `name` to `<dir>/starts.log`, then, while `<dir>/hang` exists, never answers (the test
// kills plan-mcp meanwhile). It ends when its input ends.
import { appendFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'

const dir = process.argv[2] ?? '.'
const server = new McpServer({ name: 'slow-tool', version: '1.0.0' })
server.registerTool(
  'slow_write',
  { description: 'Write slowly.', inputSchema: { name: z.string() } },
  async ({ name }) => {
    appendFileSync(join(dir, 'starts.log'), `${name}\n`)
    while (existsSync(join(dir, 'hang'))) await new Promise((resolve) => setTimeout(resolve, 50))
    return { content: [{ type: 'text', text: `wrote ${name}` }] }
  },
)
process.stdin.on('end', () => process.exit(0))
await server.connect(new StdioServerTransport())
