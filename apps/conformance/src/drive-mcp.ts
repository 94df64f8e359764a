import { readFile, writeFile } from 'node:fs/promises'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { createTestWorkspace } from '@plan/core/test'
import { guardMcpClient } from '@plan/mcp'
import { z } from 'zod'
import { auditTrail, decisions, type Outcome, recorder, type Scenario } from './scenario.js'

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })

/** An MCP server with the three recording tools. */
function recordingServer(record: (tool: string, value: string) => void): McpServer {
  const server = new McpServer({ name: 'conformance', version: '1.0.0' })
  server.registerTool('view_file', { inputSchema: { file: z.string() } }, async ({ file }) => {
    record('view_file', file)
    return text(await readFile(file, 'utf8'))
  })
  server.registerTool(
    'write_file',
    { inputSchema: { file: z.string(), content: z.string() } },
    async ({ file, content }) => {
      record('write_file', file)
      await writeFile(file, content)
      return text(`wrote ${file}`)
    },
  )
  server.registerTool(
    'run_command',
    { inputSchema: { command: z.string() } },
    async ({ command }) => {
      record('run_command', command)
      return text(`ran ${command}`)
    },
  )
  return server
}

/** Runs the scenario through an MCP client guarded by `guardMcpClient`, one call at a time. */
export async function driveMcp(scenario: Scenario): Promise<Outcome> {
  await using workspace = await createTestWorkspace()
  const { ran, record } = recorder(workspace.root)
  const { calls, turns, onDecision } = decisions()
  const { audit, trail } = auditTrail()
  const server = recordingServer(record)
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair()
  await server.connect(serverEnd)
  const client = new Client({ name: 'agent', version: '1.0.0' })
  await client.connect(clientEnd)
  try {
    await guardMcpClient(client, {
      policy: scenario.policy(workspace.root),
      ...(scenario.plan === undefined ? {} : { plan: [...scenario.plan] }),
      onDecision,
      audit,
    })
    await client.listTools()
    for (const call of scenario.calls) {
      await client.callTool({ name: call.tool, arguments: { ...call.args } })
    }
  } finally {
    await client.close()
  }
  return { calls, turns, audit: trail, ran }
}
