import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { createPlanCompiler } from '@plan/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GUARDED_CONNECTIONS } from '../test-utils/guarded-connection.js'
import { textOf } from '../test-utils/text-of.js'
import {
  createMcpWorkspace,
  filesystemServerScript,
  type McpTestWorkspace,
} from '../test-utils/workspace.js'
import { denyFilteredResult } from './deny-filtered-result.js'

const TIMEOUT = 60_000

function listingPolicy(root: string) {
  const path = { type: 'path' as const, access: 'read' as const }
  const patterns = { type: 'array' as const, items: { type: 'string' as const }, required: false }
  return {
    version: 1 as const,
    workspace: { roots: [root], readOnly: ['.git'], deny: ['.env', 'secrets'] },
    tools: {
      list_directory: { args: { path } },
      list_directory_with_sizes: {
        args: {
          path,
          sortBy: { type: 'enum' as const, values: ['name', 'size'], required: false },
        },
      },
      directory_tree: { args: { path, excludePatterns: patterns } },
      search_files: {
        args: { path, pattern: { type: 'string' as const }, excludePatterns: patterns },
      },
    },
  }
}

const text = (value: string, structured = true) => ({
  content: [{ type: 'text', text: value }],
  ...(structured ? { structuredContent: { content: value } } : {}),
})

describe('denyFilteredResult', () => {
  const root = '/srv/repo'
  let compiler: Awaited<ReturnType<typeof createPlanCompiler>>
  beforeAll(async () => {
    compiler = await createPlanCompiler(listingPolicy(root))
  })
  const filtered = (tool: string, result: unknown, path = root) =>
    denyFilteredResult(tool, { path }, result, compiler)

  it('should drop denied entries of a listing and keep their neighbours', () => {
    const listing =
      '[DIR] secrets\n[FILE] .env\n[FILE] .env.example\n[DIR] secrets-public\n[FILE] a.md'
    const kept = '[FILE] .env.example\n[DIR] secrets-public\n[FILE] a.md'
    expect(filtered('list_directory', text(listing))).toEqual(text(kept))
  })

  it('should drop denied entries of a listing with sizes, padded or not', () => {
    const listing = [
      `[FILE] ${'.env'.padEnd(30)}      12 B`,
      `[DIR] ${'secrets'.padEnd(30)} `,
      `[FILE] ${'notes.md'.padEnd(30)}    1.5 KB`,
      '',
      'Total: 2 files, 1 directories',
    ].join('\n')
    const result = filtered('list_directory_with_sizes', text(listing)) as ReturnType<typeof text>
    expect(result.content[0]?.text.split('\n')).toEqual([
      `[FILE] ${'notes.md'.padEnd(30)}    1.5 KB`,
      '',
      'Total: 2 files, 1 directories',
    ])
  })

  it('should drop denied paths from a search, and the folders below a denied one', () => {
    const found = [`${root}/secrets/key.txt`, `${root}/src/a.ts`, `${root}/.env`, `${root}/secrets`]
    expect(filtered('search_files', text(found.join('\n')))).toEqual(text(`${root}/src/a.ts`))
    expect(filtered('search_files', text('No matches found'))).toEqual(text('No matches found'))
  })

  it('should prune denied entries at any depth of a tree, below the folder asked for', () => {
    const tree = [
      { name: '.env', type: 'file' },
      { name: 'secrets', type: 'directory', children: [{ name: 'key', type: 'file' }] },
      { name: 'src', type: 'directory', children: [{ name: 'a.ts', type: 'file' }] },
    ]
    const result = filtered('directory_tree', text(JSON.stringify(tree), false))
    expect(JSON.parse(textOf(result))).toEqual([tree[2]])
  })

  it('should withhold a result it cannot read rather than pass it', () => {
    const result = filtered('directory_tree', text('[{"name": "secrets", '))
    expect(result).toMatchObject({ isError: true })
    expect(textOf(result)).not.toContain('secrets"')
  })

  it('should leave other tools and error results as they are', () => {
    const listing = text('[FILE] .env')
    expect(filtered('read_text_file', listing)).toBe(listing)
    const failed = { ...listing, isError: true }
    expect(filtered('list_directory', failed)).toBe(failed)
  })

  it('should leave a tool named as an Object member as it is, and filter a listing', () => {
    const result = text('plain output of a tool')
    for (const tool of ['toString', 'constructor', 'valueOf', 'hasOwnProperty', '__proto__'])
      expect(filtered(tool, result)).toBe(result)
    expect(textOf(filtered('list_directory', text('[FILE] .env\n[FILE] a.ts')))).toBe('[FILE] a.ts')
  })
})

describe.each(GUARDED_CONNECTIONS)('%s (the filesystem server’s listings)', (_name, connect) => {
  let workspace: McpTestWorkspace
  beforeAll(async () => {
    workspace = await createMcpWorkspace()
    await mkdir(join(workspace.root, 'secrets', 'deep'), { recursive: true })
    await writeFile(join(workspace.root, 'secrets', 'deep', 'key.txt'), 'secret key\n')
    await writeFile(join(workspace.root, 'src', 'secrets.md'), 'a name, not the folder\n')
  }, TIMEOUT)
  afterAll(() => workspace?.remove())

  it(
    'should return no name under deny from list_directory, directory_tree or search_files',
    async () => {
      const server = new StdioClientTransport({
        command: process.execPath,
        args: [filesystemServerScript, workspace.root],
        stderr: 'ignore',
      })
      const connection = await connect(server, { policy: listingPolicy(workspace.root) })
      const call = async (name: string, args: Record<string, unknown>) =>
        textOf(
          await connection.client.callTool({ name, arguments: { path: workspace.root, ...args } }),
        )
      try {
        const listing = await call('list_directory', {})
        expect(listing).toContain('[FILE] README.md')
        expect(listing).not.toMatch(/\.env|\bsecrets\b/)
        const sized = await call('list_directory_with_sizes', {})
        expect(sized).toContain('README.md')
        expect(sized).not.toMatch(/\.env|\bsecrets\b/)
        const tree = await call('directory_tree', {})
        expect(tree).toContain('"main.ts"')
        expect(tree).toContain('"secrets.md"')
        expect(tree).not.toMatch(/"\.env"|"secrets"|key\.txt/)
        const search = await call('search_files', { pattern: '**/*' })
        expect(search).toContain(join(workspace.root, 'src', 'secrets.md'))
        expect(search).not.toMatch(/\.env|key\.txt|secrets\/deep/)
      } finally {
        await connection.close()
      }
    },
    TIMEOUT,
  )
})
