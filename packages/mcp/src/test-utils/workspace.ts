import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { createTestWorkspace, type TestWorkspace } from '@plan/core/test'

/** The script of the real `@modelcontextprotocol/server-filesystem` from npm. */
export const filesystemServerScript = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-filesystem/dist/index.js',
)

/**
 * The test kit's workspace with what the MCP tests attack: a secret outside it, a sibling
 * `-evil` folder, a link out (`link-out.txt`), `.env` and `.git`.
 */
export interface McpTestWorkspace extends TestWorkspace {
  /** The folder that holds the workspace, the folder outside it and the sibling. */
  readonly base: string
  /** A sibling folder whose name starts with the workspace's. */
  readonly evil: string
}

export async function createMcpWorkspace(): Promise<McpTestWorkspace> {
  const workspace = await createTestWorkspace({
    files: {
      'README.md': '# Hello from the workspace\n',
      'src/main.ts': 'export const answer = 42\n',
      '.env': 'API_KEY=workspace-secret\n',
      '.git/config': '[core]\n',
    },
  })
  const base = dirname(workspace.root)
  const evil = `${workspace.root}-evil`
  await mkdir(evil)
  await writeFile(join(evil, 'secret.txt'), 'sibling secret\n')
  await writeFile(join(workspace.outside, 'secret.txt'), 'outside secret\n')
  await symlink(join(workspace.outside, 'secret.txt'), join(workspace.root, 'link-out.txt'))
  return { ...workspace, base, evil }
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
