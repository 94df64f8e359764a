import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { guardMcpClient } from '../client/guard-mcp-client.js'
import { guardMcpTransport } from '../client/guard-mcp-transport.js'
import type { McpGuardSettings } from '../guard/create-mcp-call-guard.js'
import {
  connectFileResourceServer,
  type FileResourceLog,
} from '../test-utils/file-resource-server.js'
import {
  createTestWorkspace,
  filesystemPolicy,
  type TestWorkspace,
} from '../test-utils/workspace.js'
import { createMcpGuardProxy } from './create-mcp-guard-proxy.js'

const TIMEOUT = 60_000

type Settings = Pick<McpGuardSettings, 'resources' | 'resourceSchemes'>

/** A client in front of the file resource server, guarded one of the three ways. */
type Connect = (
  workspace: TestWorkspace,
  settings: Settings,
) => Promise<{ client: Client; log: FileResourceLog; close(): Promise<void> }>

function listed(workspace: TestWorkspace): string[] {
  return [
    pathToFileURL(join(workspace.root, 'README.md')).href,
    pathToFileURL(join(workspace.outside, 'secret.txt')).href,
  ]
}

const throughProxy: Connect = async (workspace, settings) => {
  const { transport, log } = await connectFileResourceServer(listed(workspace))
  const [clientSide, proxySide] = InMemoryTransport.createLinkedPair()
  const proxy = await createMcpGuardProxy({
    policy: filesystemPolicy(workspace.root),
    ...settings,
    client: proxySide,
    server: transport,
  })
  const client = new Client({ name: 'resources-test', version: '1.0.0' })
  await client.connect(clientSide)
  return { client, log, close: () => client.close().then(() => proxy.close()) }
}

const throughClientGuard: Connect = async (workspace, settings) => {
  const { transport, log } = await connectFileResourceServer(listed(workspace))
  const client = new Client({ name: 'resources-test', version: '1.0.0' })
  await client.connect(transport)
  await guardMcpClient(client, { policy: filesystemPolicy(workspace.root), ...settings })
  return { client, log, close: () => client.close() }
}

const throughTransportGuard: Connect = async (workspace, settings) => {
  const { transport, log } = await connectFileResourceServer(listed(workspace))
  const guarded = await guardMcpTransport(transport, {
    policy: filesystemPolicy(workspace.root),
    ...settings,
  })
  const client = new Client({ name: 'resources-test', version: '1.0.0' })
  await client.connect(guarded)
  return { client, log, close: () => client.close() }
}

describe.each([
  ['createMcpGuardProxy', throughProxy],
  ['guardMcpClient', throughClientGuard],
  ['guardMcpTransport', throughTransportGuard],
])('%s (resources)', (_name, connect) => {
  let workspace: TestWorkspace

  beforeAll(async () => {
    workspace = await createTestWorkspace()
  })

  afterAll(async () => {
    await workspace?.remove()
  })

  it(
    "should hold resources/read to the workspace with resources: 'workspace', unsent when refused",
    async () => {
      const { client, log, close } = await connect(workspace, { resources: 'workspace' })
      try {
        const readme = pathToFileURL(join(workspace.root, 'README.md')).href
        const read = await client.readResource({ uri: readme })
        expect(read.contents).toEqual([{ uri: readme, text: '# Hello from the workspace\n' }])
        const root = workspace.root
        for (const uri of [
          `file://${root}/../outside/secret.txt`,
          `file://${root}/%2e%2e/outside/secret.txt`,
          `file://localhost${workspace.outside}/secret.txt`,
          `file://${root}/link-out.txt`,
          `FILE://${workspace.outside}/secret.txt`,
          `file://${root}/.env`,
          'note://today',
        ]) {
          const refused = client.readResource({ uri })
          await expect(refused, uri).rejects.toMatchObject({
            code: -32602,
            message: expect.stringContaining('@plan denied the resource'),
            data: { issues: [expect.objectContaining({ path: ['uri'] })] },
          })
        }
        await expect(
          client.subscribeResource({ uri: `file://${workspace.outside}/secret.txt` }),
        ).rejects.toMatchObject({ code: -32602 })
        expect(log.reads).toEqual([join(workspace.root, 'README.md')])
        // The list is the server's own: entries outside the workspace stay, and reading them is refused.
        const resources = (await client.listResources()).resources.map((item) => item.uri)
        expect(resources).toEqual(['note://today', ...listed(workspace)])
      } finally {
        await close()
      }
    },
    TIMEOUT,
  )

  it(
    'should pass the schemes listed in resourceSchemes unchecked',
    async () => {
      const { client, close } = await connect(workspace, {
        resources: 'workspace',
        resourceSchemes: ['note'],
      })
      try {
        const note = await client.readResource({ uri: 'note://today' })
        expect(note.contents).toEqual([{ uri: 'note://today', text: 'a note' }])
      } finally {
        await close()
      }
    },
    TIMEOUT,
  )

  it(
    'should pass resources/read unchecked by default, as before',
    async () => {
      const { client, log, close } = await connect(workspace, {})
      try {
        const secret = pathToFileURL(join(workspace.outside, 'secret.txt')).href
        const read = await client.readResource({ uri: secret })
        expect(read.contents).toEqual([{ uri: secret, text: 'outside secret\n' }])
        expect(log.reads).toEqual([join(workspace.outside, 'secret.txt')])
      } finally {
        await close()
      }
    },
    TIMEOUT,
  )
})
