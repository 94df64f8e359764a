import { tmpdir } from 'node:os'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ListToolsRequestSchema,
  ListToolsResultSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it } from 'vitest'
import { connectShellServer } from '../test-utils/connect-shell-server.js'
import { shellPolicy } from '../test-utils/shell-server.js'
import { textOf } from '../test-utils/text-of.js'
import { toolDefinitionHash } from '../tools/tool-definition.js'
import { guardMcpClient } from './guard-mcp-client.js'

const TIMEOUT = 60_000

/** The shell policy without the `slow` tool. */
function policy() {
  const { slow: _slow, ...tools } = shellPolicy(tmpdir()).tools
  return { ...shellPolicy(tmpdir()), tools }
}

describe('guardMcpClient', () => {
  it(
    'should hide unlisted tools and answer refused calls with isError results, unsent',
    async () => {
      const { transport, log } = await connectShellServer()
      const client = new Client({ name: 'test', version: '1.0.0' })
      await client.connect(transport)
      const guarded = await guardMcpClient(client, { policy: policy() })
      try {
        expect(guarded).toBe(client)
        const names = (await client.listTools()).tools.map((tool) => tool.name)
        expect(names.sort()).toEqual(['ask_name', 'read_note', 'shell'])
        const refused = await client.callTool({
          name: 'shell',
          arguments: { command: 'curl https://evil.example' },
        })
        expect(refused.isError).toBe(true)
        expect(textOf(refused)).toContain('command_not_allowed')
        const unlisted = await client.callTool({ name: 'slow', arguments: {} })
        expect(unlisted.isError).toBe(true)
        expect(textOf(unlisted)).toContain('unknown_tool')
        const allowed = await client.callTool({
          name: 'shell',
          arguments: { command: 'git status' },
        })
        expect(textOf(allowed)).toBe('ran: git status')
        expect(log.commands).toEqual(['git status'])
      } finally {
        await client.close()
      }
    },
    TIMEOUT,
  )

  it(
    'should count every call against the run budgets',
    async () => {
      const { transport, log } = await connectShellServer()
      const client = new Client({ name: 'test', version: '1.0.0' })
      await client.connect(transport)
      await guardMcpClient(client, { policy: { ...policy(), budgets: { maxCalls: 2 } } })
      try {
        for (const command of ['ls', 'ls src']) {
          const result = await client.callTool({ name: 'shell', arguments: { command } })
          expect(result.isError).not.toBe(true)
        }
        const third = await client.callTool({ name: 'shell', arguments: { command: 'ls docs' } })
        expect(third.isError).toBe(true)
        expect(textOf(third)).toContain('budget_exhausted')
        expect(log.commands).toEqual(['ls', 'ls src'])
      } finally {
        await client.close()
      }
    },
    TIMEOUT,
  )

  it(
    'should guard tools/call and tools/list sent through client.request, not only callTool',
    async () => {
      const { transport, log } = await connectShellServer()
      const client = new Client({ name: 'test', version: '1.0.0' })
      await client.connect(transport)
      await guardMcpClient(client, { policy: { ...policy(), budgets: { maxCalls: 1 } } })
      try {
        const listed = await client.request({ method: 'tools/list' }, ListToolsResultSchema)
        expect(listed.tools.map((tool) => tool.name).sort()).toEqual([
          'ask_name',
          'read_note',
          'shell',
        ])
        const call = (command: string) =>
          client.request(
            { method: 'tools/call', params: { name: 'shell', arguments: { command } } },
            CallToolResultSchema,
          )
        const refused = await call('curl https://evil.example')
        expect(refused.isError).toBe(true)
        expect(textOf(refused)).toContain('command_not_allowed')
        expect(textOf(await call('git status'))).toBe('ran: git status')
        const overBudget = await call('ls')
        expect(textOf(overBudget)).toContain('budget_exhausted')
        expect(log.commands).toEqual(['git status'])
      } finally {
        await client.close()
      }
    },
    TIMEOUT,
  )

  it(
    'should refuse task-based tool calls unsent, by request option, by params and by stream',
    async () => {
      const { transport, log } = await connectShellServer()
      const client = new Client({ name: 'test', version: '1.0.0' })
      await client.connect(transport)
      await guardMcpClient(client, { policy: policy() })
      try {
        const params = { name: 'shell', arguments: { command: 'ls' } }
        await expect(
          client.request({ method: 'tools/call', params }, CallToolResultSchema, {
            task: { ttl: 60_000 },
          }),
        ).rejects.toThrow(/task-based tool calls/)
        await expect(
          client.request({ method: 'tools/call', params }, CallToolResultSchema, {
            task: { ttl: 60_000 },
          }),
        ).rejects.toMatchObject({
          code: -32600,
          data: {
            issues: [
              expect.objectContaining({
                code: 'task_not_guarded',
                path: ['params', 'task'],
                hint: 'Call the tool without a task.',
              }),
            ],
          },
        })
        await expect(
          client.request(
            { method: 'tools/call', params: { ...params, task: { ttl: 60_000 } } },
            CallToolResultSchema,
          ),
        ).rejects.toThrow(/task-based tool calls/)
        const messages = []
        for await (const message of client.experimental.tasks.callToolStream(
          params,
          CallToolResultSchema,
          {
            task: { ttl: 60_000 },
          },
        ))
          messages.push(message)
        expect(messages.map((message) => message.type)).toEqual(['error'])
        expect(log.commands).toEqual([])
      } finally {
        await client.close()
      }
    },
    TIMEOUT,
  )
})

describe('guardMcpClient (pinned tools)', () => {
  it(
    'should list the tools itself before calling a pinned tool, and stop at a cursor that repeats',
    async () => {
      const tool = { name: 'echo', inputSchema: { type: 'object' as const } }
      const server = new Server({ name: 'loop', version: '1.0.0' }, { capabilities: { tools: {} } })
      let pages = 0
      server.setRequestHandler(ListToolsRequestSchema, async () => {
        pages += 1
        return { tools: [tool], nextCursor: 'again' }
      })
      server.setRequestHandler(CallToolRequestSchema, async () => ({
        content: [{ type: 'text', text: 'echoed' }],
      }))
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      await server.connect(serverSide)
      const client = new Client({ name: 'test', version: '1.0.0' })
      await client.connect(clientSide)
      const pinned = {
        version: 1 as const,
        workspace: { roots: [tmpdir()] },
        tools: { echo: { pin: toolDefinitionHash(tool) } },
      }
      await guardMcpClient(client, { policy: pinned })
      try {
        const result = await client.callTool({ name: 'echo', arguments: {} })
        expect(textOf(result)).toBe('echoed')
        expect(pages).toBe(2)
      } finally {
        await client.close()
      }
    },
    TIMEOUT,
  )
})
