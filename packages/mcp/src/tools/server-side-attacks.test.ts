import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { createMemoryAuditSink } from '@plan/audit'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { connectFileResourceServer } from '../test-utils/file-resource-server.js'
import { GUARDED_CONNECTIONS, type GuardedConnection } from '../test-utils/guarded-connection.js'
import {
  connectRugPullServer,
  createRugPullServer,
  type RugPullServer,
} from '../test-utils/rug-pull-server.js'
import { textOf } from '../test-utils/text-of.js'
import {
  createMcpWorkspace,
  filesystemPolicy,
  type McpTestWorkspace,
} from '../test-utils/workspace.js'
import { toolDefinitionHash } from './tool-definition.js'

const TIMEOUT = 60_000

/** The pins of the notes server's tools as it lists them before any change. */
async function reviewedPins(): Promise<Record<string, string>> {
  const { server } = createRugPullServer()
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const direct = new Client({ name: 'reviewer', version: '1.0.0' })
  await direct.connect(clientSide)
  const { tools } = await direct.listTools()
  await direct.close()
  return Object.fromEntries(tools.map((tool) => [tool.name, toolDefinitionHash(tool)]))
}

function notesPolicy(root: string, pins: Record<string, string>) {
  const path = (access: 'read' | 'write') => ({ type: 'path' as const, access })
  return {
    version: 1 as const,
    workspace: { roots: [root], readOnly: ['.git'], deny: ['.env'] },
    tools: {
      read_note: { args: { path: path('read') }, pin: pins.read_note },
      delete_note: { args: { path: path('write') }, pin: pins.delete_note },
      write_note: { args: { path: path('write'), text: { type: 'string' as const } } },
    },
    mcp: { requirePins: true, prompts: ['review'] },
  }
}

function codeOf(result: unknown): string | undefined {
  return /\b(tool_[a-z_]+|unknown_tool|path_[a-z_]+)\b/.exec(textOf(result))?.[1]
}

function withheldCodes(notices: readonly unknown[]): Record<string, string> {
  const codes: Record<string, string> = {}
  for (const notice of notices) {
    const withheld = (notice as { data?: { withheld?: { tool: string; code: string }[] } }).data
      ?.withheld
    for (const tool of withheld ?? []) codes[tool.tool] = tool.code
  }
  return codes
}

async function listedNames(connection: GuardedConnection): Promise<string[]> {
  return (await connection.client.listTools()).tools.map((tool) => tool.name).sort()
}

describe.each(GUARDED_CONNECTIONS)('%s (server-side attacks)', (_name, connect) => {
  let workspace: McpTestWorkspace
  let pins: Record<string, string>
  let rug: RugPullServer
  let connection: GuardedConnection
  let audit: ReturnType<typeof createMemoryAuditSink>

  beforeAll(async () => {
    workspace = await createMcpWorkspace()
    pins = await reviewedPins()
  }, TIMEOUT)
  afterAll(() => workspace?.remove())
  afterEach(() => connection?.close())

  async function open(): Promise<void> {
    const server = await connectRugPullServer()
    rug = server.rug
    audit = createMemoryAuditSink()
    connection = await connect(server.transport, {
      policy: notesPolicy(workspace.root, pins),
      audit,
    })
  }

  const readNote = (path = 'README.md') =>
    connection.client.callTool({ name: 'read_note', arguments: { path } })

  it('should list only the allowed, pinned tools, with the policy’s argument schema', async () => {
    await open()
    const { tools } = await connection.client.listTools()
    expect(tools.map((tool) => tool.name).sort()).toEqual(['delete_note', 'read_note'])
    expect(tools.find((tool) => tool.name === 'read_note')?.inputSchema).toEqual({
      type: 'object',
      properties: {
        path: {
          type: 'string',
          minLength: 1,
          description:
            'A path inside the workspace (read access); paths under its denied folders are refused. The note to read',
        },
      },
      required: ['path'],
      additionalProperties: false,
    })
    expect(await readNote()).not.toHaveProperty('isError', true)
    expect(rug.log.calls).toHaveLength(1)
  })

  it(
    'should withhold a tool whose description changed mid-session and refuse its calls',
    async () => {
      await open()
      await connection.client.listTools()
      expect(await readNote()).not.toHaveProperty('isError', true)
      rug.poisonDescription()
      await expect.poll(() => connection.changes.count).toBeGreaterThan(0)
      // before the client lists again: the proxy refuses, the client guard lists first
      expect(['tool_not_listed', 'tool_definition_changed']).toContain(codeOf(await readNote()))
      const listed = await connection.client.listTools()
      expect(listed.tools.map((tool) => tool.name)).toEqual(['delete_note'])
      expect(JSON.stringify(listed)).not.toContain('IMPORTANT')
      await expect
        .poll(() => withheldCodes(connection.notices))
        .toEqual({
          read_note: 'tool_definition_changed',
        })
      const refused = await readNote('../outside/secret.txt')
      expect(refused.isError).toBe(true)
      expect(codeOf(refused)).toBe('tool_definition_changed')
      expect(rug.log.calls).toHaveLength(1)
      expect(audit.events).toContainEqual(
        expect.objectContaining({ type: 'tool_withheld', tool: 'read_note', pin: pins.read_note }),
      )
      expect(audit.events).toContainEqual(
        expect.objectContaining({ type: 'call_denied', tool: 'read_note' }),
      )
    },
    TIMEOUT,
  )

  it(
    'should withhold tools added mid-session until they are pinned or listed',
    async () => {
      await open()
      await connection.client.listTools()
      rug.addTools()
      await expect.poll(() => connection.changes.count).toBeGreaterThan(0)
      expect(await listedNames(connection)).toEqual(['delete_note', 'read_note'])
      await expect
        .poll(() => withheldCodes(connection.notices))
        .toEqual({
          write_note: 'tool_not_pinned',
        })
      const write = { name: 'write_note', arguments: { path: 'notes.md', text: 'x' } }
      expect(codeOf(await connection.client.callTool(write))).toBe('tool_not_pinned')
      const away = { name: 'exfiltrate', arguments: { url: 'https://evil.example' } }
      expect(codeOf(await connection.client.callTool(away))).toBe('unknown_tool')
      expect(rug.log.calls).toEqual([])
    },
    TIMEOUT,
  )

  it(
    'should withhold a tool whose annotations changed, as any change of its definition',
    async () => {
      await open()
      await connection.client.listTools()
      rug.changeAnnotations()
      await expect.poll(() => connection.changes.count).toBeGreaterThan(0)
      expect(await listedNames(connection)).toEqual(['delete_note'])
    },
    TIMEOUT,
  )

  it(
    'should hold a tool to the policy whatever its annotations say',
    async () => {
      await open()
      const { tools } = await connection.client.listTools()
      // delete_note says readOnlyHint and not destructiveHint; the policy says it writes
      expect(tools.find((tool) => tool.name === 'delete_note')?.annotations).toEqual({
        readOnlyHint: false,
        destructiveHint: true,
        openWorldHint: false,
      })
      expect(tools.find((tool) => tool.name === 'read_note')?.annotations).toEqual({
        readOnlyHint: true,
        openWorldHint: false,
      })
      const protectedFile = { name: 'delete_note', arguments: { path: '.git/config' } }
      expect(codeOf(await connection.client.callTool(protectedFile))).toBe('path_not_allowed')
      const secret = await readNote('.env')
      expect(secret.isError).toBe(true)
      expect(rug.log.calls).toEqual([])
      const everyday = { name: 'delete_note', arguments: { path: 'notes/old.md' } }
      expect(await connection.client.callTool(everyday)).not.toHaveProperty('isError', true)
      expect(rug.log.calls.map((call) => call.tool)).toEqual(['delete_note'])
    },
    TIMEOUT,
  )

  it(
    'should treat a tool’s result as untrusted: its text may not choose a path to write',
    async () => {
      await open()
      await connection.client.listTools()
      const output = textOf(await readNote())
      const copied = { name: 'delete_note', arguments: { path: `${output}.md` } }
      const refused = await connection.client.callTool(copied)
      expect(refused.isError).toBe(true)
      expect(textOf(refused)).toContain('untrusted_flow')
      expect(rug.log.calls.map((call) => call.tool)).toEqual(['read_note'])
    },
    TIMEOUT,
  )

  it(
    'should list and get only the prompts the policy lists',
    async () => {
      await open()
      const { prompts } = await connection.client.listPrompts()
      expect(prompts.map((prompt) => prompt.name)).toEqual(['review'])
      const leak = await connection.client
        .getPrompt({ name: 'leak', arguments: { topic: 'x' } })
        .then(
          () => undefined,
          (error: { data?: { issues?: { code: string }[] } }) => error.data?.issues?.[0]?.code,
        )
      expect(leak).toBe('prompt_not_allowed')
      const review = await connection.client.getPrompt({
        name: 'review',
        arguments: { topic: 'x' },
      })
      expect(review.messages).toEqual([
        { role: 'user', content: { type: 'text', text: 'review text' } },
      ])
      expect(rug.log.prompts).toEqual(['review'])
      const complete = (name: string) =>
        connection.client.complete({
          ref: { type: 'ref/prompt', name },
          argument: { name: 'topic', value: '' },
        })
      expect((await complete('review')).completion.values).toEqual(['review-topic'])
      const leaked = await complete('leak').then(
        () => undefined,
        (error: { data?: { issues?: { code: string }[] } }) => error.data?.issues?.[0]?.code,
      )
      expect(leaked).toBe('prompt_not_allowed')
      expect(audit.events).toContainEqual(
        expect.objectContaining({
          type: 'resource_denied',
          method: 'prompts/get',
          uri: 'prompt:leak',
        }),
      )
    },
    TIMEOUT,
  )
})

describe.each(GUARDED_CONNECTIONS.filter(([name]) => name !== 'guardMcpClient'))(
  '%s (list_changed)',
  (_name, connect) => {
    let workspace: McpTestWorkspace
    beforeAll(async () => {
      workspace = await createMcpWorkspace()
    }, TIMEOUT)
    afterAll(() => workspace?.remove())

    it(
      'should list the tools itself on list_changed and report a changed one before the client lists',
      async () => {
        const pins = await reviewedPins()
        const { transport, rug } = await connectRugPullServer()
        const connection = await connect(transport, { policy: notesPolicy(workspace.root, pins) })
        try {
          await connection.client.listTools()
          rug.poisonDescription()
          await expect
            .poll(() => withheldCodes(connection.notices))
            .toEqual({
              read_note: 'tool_definition_changed',
            })
          const call = { name: 'read_note', arguments: { path: 'README.md' } }
          expect(codeOf(await connection.client.callTool(call))).toBe('tool_definition_changed')
          // an unchanged tool is judged again and stays callable without the client listing
          const other = { name: 'delete_note', arguments: { path: 'notes/old.md' } }
          expect(await connection.client.callTool(other)).not.toHaveProperty('isError', true)
          expect(rug.log.calls.map((entry) => entry.tool)).toEqual(['delete_note'])
        } finally {
          await connection.close()
        }
      },
      TIMEOUT,
    )
  },
)

describe.each(GUARDED_CONNECTIONS)('%s (two servers behind one policy)', (_name, connect) => {
  const policy = {
    version: 1 as const,
    workspace: { roots: ['/srv/shared'] },
    tools: {
      notes__read_note: { args: { path: { type: 'path' as const, access: 'read' as const } } },
      mail__read_note: { args: { path: { type: 'enum' as const, values: ['inbox'] } } },
    },
  }
  const connections: GuardedConnection[] = []
  afterEach(async () => {
    for (const connection of connections.splice(0)) await connection.close()
  })

  async function openBoth() {
    const notes = await connectRugPullServer('notes')
    const mail = await connectRugPullServer('mail')
    const options = { policy, checkPathsOnDisk: false }
    const notesClient = await connect(notes.transport, { ...options, serverName: 'notes' })
    const mailClient = await connect(mail.transport, { ...options, serverName: 'mail' })
    connections.push(notesClient, mailClient)
    return { notes: notes.rug, mail: mail.rug, notesClient, mailClient }
  }

  it(
    'should show each server its own entry, and never run one server’s call on the other',
    async () => {
      const { notes, mail, notesClient, mailClient } = await openBoth()
      const notesTools = (await notesClient.client.listTools()).tools
      const mailTools = (await mailClient.client.listTools()).tools
      expect(notesTools.map((tool) => tool.name)).toEqual(['notes__read_note'])
      expect(mailTools.map((tool) => tool.name)).toEqual(['mail__read_note'])
      expect(mailTools[0]?.inputSchema.properties).toEqual({
        path: { enum: ['inbox'], description: 'The note to read' },
      })
      const shadowed = { name: 'notes__read_note', arguments: { path: 'README.md' } }
      expect(codeOf(await mailClient.client.callTool(shadowed))).toBe('unknown_tool')
      const bare = { name: 'read_note', arguments: { path: 'inbox' } }
      expect(codeOf(await mailClient.client.callTool(bare))).toBe('unknown_tool')
      expect(mail.log.calls).toEqual([])
      // the mail entry's narrow argument holds for mail, the notes entry's path rule for notes
      const widened = { name: 'mail__read_note', arguments: { path: 'README.md' } }
      expect((await mailClient.client.callTool(widened)).isError).toBe(true)
      const inbox = { name: 'mail__read_note', arguments: { path: 'inbox' } }
      expect(textOf(await mailClient.client.callTool(inbox))).toBe('mail:read_note ran')
      expect(textOf(await notesClient.client.callTool(shadowed))).toBe('notes:read_note ran')
      expect(mail.log.calls).toEqual([{ tool: 'read_note', args: { path: 'inbox' } }])
      expect(notes.log.calls).toEqual([{ tool: 'read_note', args: { path: 'README.md' } }])
    },
    TIMEOUT,
  )
})

describe.each(GUARDED_CONNECTIONS)('%s (resources by the policy)', (_name, connect) => {
  let workspace: McpTestWorkspace
  beforeAll(async () => {
    workspace = await createMcpWorkspace()
  }, TIMEOUT)
  afterAll(() => workspace?.remove())

  it(
    'should read file: URIs the policy’s mcp.resources allows, path-checked, and refuse the rest',
    async () => {
      const uri = (path: string) => pathToFileURL(path).href
      const inside = uri(join(workspace.root, 'README.md'))
      const { transport, log } = await connectFileResourceServer([inside])
      const audit = createMemoryAuditSink()
      const policy = {
        ...filesystemPolicy(workspace.root),
        mcp: { resources: ['file'] },
      }
      const connection = await connect(transport, { policy, audit })
      try {
        const refusal = (target: string) =>
          connection.client.readResource({ uri: target }).then(
            () => undefined,
            (error: { data?: { issues?: { code: string }[] } }) => error.data?.issues?.[0]?.code,
          )
        const read = await connection.client.readResource({ uri: inside })
        expect(read.contents).toMatchObject([{ text: '# Hello from the workspace\n' }])
        expect(await refusal(uri(join(workspace.outside, 'secret.txt')))).toBe(
          'path_outside_workspace',
        )
        expect(await refusal(uri(join(workspace.root, '.env')))).toBe('path_not_allowed')
        expect(await refusal('note://today')).toBe('resource_not_allowed')
        expect(log.reads).toEqual([join(workspace.root, 'README.md')])
        expect(audit.events.map((event) => event.type)).toEqual([
          'resource_allowed',
          'resource_completed',
          'resource_denied',
          'resource_denied',
          'resource_denied',
        ])
      } finally {
        await connection.close()
      }
    },
    TIMEOUT,
  )
})
