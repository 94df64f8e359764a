import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { resolvePolicy } from '@plan/core/schemas'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { textOf } from '../test-utils/text-of.js'
import {
  createMcpWorkspace,
  filesystemPolicy,
  filesystemServerScript,
  type McpTestWorkspace,
} from '../test-utils/workspace.js'
import { toolInputSchema } from '../tools/tool-input-schema.js'
import { createMcpGuardProxy, type McpGuardProxy } from './create-mcp-guard-proxy.js'

const TIMEOUT = 60_000

interface Session {
  readonly client: Client
  readonly proxy: McpGuardProxy
  close(): Promise<void>
}

/** The real filesystem server over stdio behind the proxy, driven by the SDK's Client. */
async function openSession(
  workspace: McpTestWorkspace,
  budgets: Record<string, number> = {},
): Promise<Session> {
  const [clientSide, proxySide] = InMemoryTransport.createLinkedPair()
  const proxy = await createMcpGuardProxy({
    policy: filesystemPolicy(workspace.root, budgets),
    client: proxySide,
    server: { command: [process.execPath, filesystemServerScript, workspace.root] },
  })
  const client = new Client({ name: 'test-client', version: '1.0.0' })
  await client.connect(clientSide)
  return {
    client,
    proxy,
    close: async () => {
      await client.close()
      await proxy.close()
    },
  }
}

async function read(client: Client, path: string) {
  return client.callTool({ name: 'read_text_file', arguments: { path } })
}

describe('createMcpGuardProxy', () => {
  let workspace: McpTestWorkspace
  let session: Session

  beforeAll(async () => {
    workspace = await createMcpWorkspace()
    session = await openSession(workspace, { maxDenials: 1000 })
  }, TIMEOUT)

  afterAll(async () => {
    await session?.close()
    await workspace?.remove()
  }, TIMEOUT)

  it(
    'should list only the tools the policy allows, with the policy’s argument schema',
    async () => {
      const direct = new Client({ name: 'direct', version: '1.0.0' })
      await direct.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [filesystemServerScript, workspace.root],
        }),
      )
      const all = (await direct.listTools()).tools
      await direct.close()
      const listed = (await session.client.listTools()).tools
      expect(listed.map((tool) => tool.name).sort()).toEqual([
        'list_directory',
        'read_text_file',
        'write_file',
      ])
      expect(all.length).toBeGreaterThan(listed.length)
      const policy = resolvePolicy(filesystemPolicy(workspace.root))
      for (const tool of listed) {
        const served = all.find((candidate) => candidate.name === tool.name)
        const entry = policy.tools.get(tool.name)
        expect(entry).toBeDefined()
        if (entry === undefined) continue
        expect(tool).toEqual({
          ...served,
          inputSchema: toolInputSchema(entry, served?.inputSchema),
        })
      }
      expect(listed.find((tool) => tool.name === 'read_text_file')?.inputSchema).toMatchObject({
        properties: { path: { type: 'string', minLength: 1 } },
        required: ['path'],
        additionalProperties: false,
      })
    },
    TIMEOUT,
  )

  it(
    'should run an allowed read, absolute or relative to the workspace',
    async () => {
      const absolute = await read(session.client, join(workspace.root, 'README.md'))
      expect(absolute.isError).not.toBe(true)
      expect(textOf(absolute)).toBe('# Hello from the workspace\n')
      const relative = await read(session.client, 'src/main.ts')
      expect(relative.isError).not.toBe(true)
      expect(textOf(relative)).toBe('export const answer = 42\n')
    },
    TIMEOUT,
  )

  it.each([
    ['a ../ traversal', (ws: McpTestWorkspace) => `${ws.root}/../outside/secret.txt`, 'path_'],
    ['a sibling-prefix path', (ws: McpTestWorkspace) => join(ws.evil, 'secret.txt'), 'path_'],
    ['a symlink out of the root', (ws: McpTestWorkspace) => join(ws.root, 'link-out.txt'), 'path_'],
    ['a denied path', (ws: McpTestWorkspace) => join(ws.root, '.env'), 'path_not_allowed'],
  ])(
    'should refuse %s with an isError result',
    async (_name, pathOf, code) => {
      const result = await read(session.client, pathOf(workspace))
      expect(result.isError).toBe(true)
      expect(textOf(result)).toContain('@plan denied the call to "read_text_file"')
      expect(textOf(result)).toContain(code)
      expect(textOf(result)).toContain('Hint:')
      for (const content of ['outside secret', 'sibling secret', 'workspace-secret'])
        expect(textOf(result)).not.toContain(content)
    },
    TIMEOUT,
  )

  it(
    'should refuse a write under a read-only path and allow one elsewhere in the workspace',
    async () => {
      const config = join(workspace.root, '.git', 'config')
      const result = await session.client.callTool({
        name: 'write_file',
        arguments: { path: config, content: '[core]\n\thooksPath = /tmp/evil\n' },
      })
      expect(result.isError).toBe(true)
      expect(textOf(result)).toContain('path_not_allowed')
      expect(await readFile(config, 'utf8')).toBe('[core]\n')
      const notes = await session.client.callTool({
        name: 'write_file',
        arguments: { path: 'notes.md', content: 'written through the proxy\n' },
      })
      expect(notes.isError).not.toBe(true)
      expect(await readFile(join(workspace.root, 'notes.md'), 'utf8')).toBe(
        'written through the proxy\n',
      )
    },
    TIMEOUT,
  )

  it(
    'should refuse a tool the policy does not list, though the server has it',
    async () => {
      const result = await session.client.callTool({
        name: 'list_allowed_directories',
        arguments: {},
      })
      expect(result.isError).toBe(true)
      expect(textOf(result)).toContain('unknown_tool')
    },
    TIMEOUT,
  )

  it(
    'should answer parallel calls each with its own decision',
    async () => {
      const { client } = session
      const [readme, main, listing, traversal, sibling, env] = await Promise.all([
        read(client, join(workspace.root, 'README.md')),
        read(client, join(workspace.root, 'src', 'main.ts')),
        client.callTool({ name: 'list_directory', arguments: { path: 'src' } }),
        read(client, `${workspace.root}/../outside/parallel.txt`),
        read(client, join(workspace.evil, 'parallel.txt')),
        read(client, '.env'),
      ])
      expect(textOf(readme)).toBe('# Hello from the workspace\n')
      expect(textOf(main)).toBe('export const answer = 42\n')
      expect(textOf(listing)).toContain('main.ts')
      for (const refused of [traversal, sibling, env]) expect(refused.isError).toBe(true)
      expect(textOf(env)).toContain('path_not_allowed')
    },
    TIMEOUT,
  )

  it(
    'should survive 100 refusals in a row and still run an allowed call',
    async () => {
      for (let index = 0; index < 100; index += 1) {
        const result = await read(session.client, `${workspace.root}/../outside/${index}.txt`)
        expect(result.isError).toBe(true)
      }
      expect((await session.client.listTools()).tools).toHaveLength(3)
      const allowed = await session.client.callTool({
        name: 'list_directory',
        arguments: { path: workspace.root },
      })
      expect(allowed.isError).not.toBe(true)
      expect(textOf(allowed)).toContain('README.md')
    },
    TIMEOUT,
  )

  it(
    'should keep answering with isError results once the denial budget stops the run',
    async () => {
      const limited = await openSession(workspace, { maxDenials: 5 })
      try {
        const texts: string[] = []
        for (let index = 0; index < 8; index += 1) {
          const result = await read(limited.client, `${workspace.root}/../x${index}`)
          expect(result.isError).toBe(true)
          texts.push(textOf(result))
        }
        expect(texts[5]).toContain('budget_exhausted')
        const after = await read(limited.client, join(workspace.root, 'README.md'))
        expect(after.isError).toBe(true)
        expect(textOf(after)).toContain('budget_exhausted')
        await expect(limited.client.ping()).resolves.toEqual({})
      } finally {
        await limited.close()
      }
    },
    TIMEOUT,
  )
})
