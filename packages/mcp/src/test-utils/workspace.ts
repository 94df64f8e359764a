import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The script of the real `@modelcontextprotocol/server-filesystem` from npm. */
export const filesystemServerScript = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-filesystem/dist/index.js',
)

/** A workspace with a secret outside it, a sibling `-evil` folder, a link out, `.env` and `.git`. */
export interface TestWorkspace {
  readonly base: string
  readonly root: string
  readonly evil: string
  readonly outside: string
  remove(): Promise<void>
}

export async function createTestWorkspace(): Promise<TestWorkspace> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'plan-mcp-')))
  const root = join(base, 'ws')
  const evil = join(base, 'ws-evil')
  const outside = join(base, 'outside')
  for (const folder of [root, evil, outside, join(root, '.git'), join(root, 'src')])
    await mkdir(folder, { recursive: true })
  await writeFile(join(root, 'README.md'), '# Hello from the workspace\n')
  await writeFile(join(root, 'src', 'main.ts'), 'export const answer = 42\n')
  await writeFile(join(root, '.env'), 'API_KEY=workspace-secret\n')
  await writeFile(join(root, '.git', 'config'), '[core]\n')
  await writeFile(join(evil, 'secret.txt'), 'sibling secret\n')
  await writeFile(join(outside, 'secret.txt'), 'outside secret\n')
  await symlink(join(outside, 'secret.txt'), join(root, 'link-out.txt'))
  return { base, root, evil, outside, remove: () => rm(base, { recursive: true, force: true }) }
}

/** A policy for the filesystem server over `root`: reads, writes, listing; `.env` denied. */
export function filesystemPolicy(root: string, budgets: Record<string, number> = {}) {
  return {
    version: 1 as const,
    workspace: { roots: [root], readOnly: ['.git'], deny: ['.env'] },
    tools: {
      read_text_file: {
        args: {
          path: { type: 'path' as const, access: 'read' as const },
          head: { type: 'number' as const, required: false },
          tail: { type: 'number' as const, required: false },
        },
      },
      write_file: {
        args: {
          path: { type: 'path' as const, access: 'write' as const },
          content: { type: 'string' as const },
        },
      },
      list_directory: { args: { path: { type: 'path' as const, access: 'read' as const } } },
    },
    budgets,
  }
}
