import { tmpdir } from 'node:os'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { describe, expect, it } from 'vitest'
import { connectShellServer } from '../test-utils/connect-shell-server.js'
import { shellPolicy } from '../test-utils/shell-server.js'
import { textOf } from '../test-utils/text-of.js'
import { guardMcpTransport } from './guard-mcp-transport.js'

const TIMEOUT = 60_000

describe('guardMcpTransport', () => {
  it(
    'should guard any client that runs over the transport',
    async () => {
      const { transport, log } = await connectShellServer()
      const { read_note: _note, ...tools } = shellPolicy(tmpdir()).tools
      const guarded = await guardMcpTransport(transport, {
        policy: { ...shellPolicy(tmpdir()), tools },
      })
      const client = new Client({ name: 'test', version: '1.0.0' })
      await client.connect(guarded)
      try {
        const names = (await client.listTools()).tools.map((tool) => tool.name)
        expect(names.sort()).toEqual(['ask_name', 'shell', 'slow'])
        const refused = await client.callTool({
          name: 'shell',
          arguments: { command: 'ls && rm -rf /' },
        })
        expect(refused.isError).toBe(true)
        expect(textOf(refused)).toContain('command_list')
        const allowed = await client.callTool({ name: 'shell', arguments: { command: 'ls -a' } })
        expect(textOf(allowed)).toBe('ran: ls -a')
        expect(await client.listResources()).toEqual({
          resources: [
            { name: 'note', uri: 'note://readme', description: 'A note', mimeType: 'text/plain' },
          ],
        })
        expect(log.commands).toEqual(['ls -a'])
      } finally {
        await client.close()
      }
    },
    TIMEOUT,
  )
})
