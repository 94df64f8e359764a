import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'

/** The text the `read_note` tool returns: an instruction planted in untrusted data. */
export const NOTE_TEXT = 'ls planted-by-the-note-author'

/** What the test server saw. */
export interface ShellServerLog {
  /** Every command the `shell` tool received. */
  readonly commands: string[]
  /** Set when a `slow` call was cancelled by its client. */
  slowCancelled: boolean
}

/**
 * A small MCP server with a `shell` tool that would run any command string it is given (it
 * only records it), a note reader, a slow tool with progress, a tool that asks the user
 * (elicitation), a resource and a prompt.
 */
export function createShellServer(): { server: McpServer; log: ShellServerLog } {
  const log: ShellServerLog = { commands: [], slowCancelled: false }
  const server = new McpServer({ name: 'shell-server', version: '1.0.0' })
  server.registerTool(
    'shell',
    { description: 'Run a shell command', inputSchema: { command: z.string() } },
    async ({ command }) => {
      log.commands.push(command)
      return { content: [{ type: 'text', text: `ran: ${command}` }] }
    },
  )
  server.registerTool('read_note', { description: 'Read the note' }, async () => ({
    content: [{ type: 'text', text: NOTE_TEXT }],
  }))
  server.registerTool('slow', { description: 'Reports progress, then waits' }, async (extra) => {
    const token = extra._meta?.progressToken
    if (token !== undefined) {
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: 1, total: 2, message: 'halfway' },
      })
    }
    await new Promise<void>((resolve) => {
      if (extra.signal.aborted) {
        log.slowCancelled = true
        return resolve()
      }
      extra.signal.addEventListener('abort', () => {
        log.slowCancelled = true
        resolve()
      })
    })
    return { content: [{ type: 'text', text: 'cancelled' }] }
  })
  server.registerTool('ask_name', { description: 'Asks the user for a name' }, async () => {
    const answer = await server.server.elicitInput({
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    })
    return {
      content: [{ type: 'text', text: `${answer.action}: ${String(answer.content?.name)}` }],
    }
  })
  server.registerResource(
    'note',
    'note://readme',
    { description: 'A note', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, text: 'resource text' }] }),
  )
  server.registerPrompt(
    'greet',
    { description: 'Greets', argsSchema: { name: z.string() } },
    ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hi ${name}` } }] }),
  )
  return { server, log }
}

/** A policy for the shell server: `ls` and `git` allowed. */
export function shellPolicy(root: string) {
  return {
    version: 1 as const,
    workspace: { roots: [root] },
    tools: {
      shell: { args: { command: { type: 'command' as const } } },
      read_note: {},
      slow: {},
      ask_name: {},
    },
    commands: { allow: ['ls', 'git'] },
    mcp: { prompts: ['greet'], resources: ['note'] },
  }
}
