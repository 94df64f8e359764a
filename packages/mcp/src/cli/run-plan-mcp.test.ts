import { spawn, spawnSync } from 'node:child_process'
import { existsSync, realpathSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import type { PassThrough } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { verifyAuditLog } from '@plan/audit'
import { policySchema } from '@plan/core/schemas'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bufferIo } from '../test-utils/buffer-io.js'
import { startHttpShellServer } from '../test-utils/http-shell-server.js'
import { initializeRequest } from '../test-utils/initialize-request.js'
import { shellPolicy } from '../test-utils/shell-server.js'
import { textOf } from '../test-utils/text-of.js'
import {
  createMcpWorkspace,
  filesystemPolicy,
  filesystemServerScript,
  type McpTestWorkspace,
} from '../test-utils/workspace.js'
import { runPlanMcp } from './run-plan-mcp.js'

const TIMEOUT = 60_000
const bin = fileURLToPath(new URL('../../dist/bin.js', import.meta.url))
const probeServerScript = fileURLToPath(new URL('../test-utils/probe-server.mjs', import.meta.url))
const fileResourceScript = fileURLToPath(
  new URL('../test-utils/file-resource-server.mjs', import.meta.url),
)
// The sandboxed server sees only system folders and the workspace: its own code must be named.
const codeFolders = [
  fileURLToPath(new URL('../..', import.meta.url)),
  realpathSync(fileURLToPath(new URL('../../../../node_modules/.pnpm', import.meta.url))),
]

// The OS sandbox needs bubblewrap: the test is required in CI and skipped only elsewhere.
const bwrapMissing = spawnSync('bwrap', ['--version']).status !== 0
if (bwrapMissing && process.env.CI !== 'true')
  console.warn('skipping the sandboxed proxy test: bubblewrap (bwrap) is not installed')

describe('runPlanMcp', () => {
  let workspace: McpTestWorkspace

  beforeAll(async () => {
    workspace = await createMcpWorkspace()
  })

  afterAll(async () => {
    await workspace?.remove()
  })

  /**
   * Starts `plan-mcp --policy <filesystem policy> --listen 0 <flags> -- <server>` and resolves
   * once it listens, with its URL; abort `controller` to stop it, then await `exited`.
   */
  async function listen(
    flags: readonly string[],
    server: readonly string[],
    env?: NodeJS.ProcessEnv,
  ) {
    const policyFile = join(workspace.base, 'listen-policy.json')
    await writeFile(policyFile, JSON.stringify(filesystemPolicy(workspace.root)))
    const controller = new AbortController()
    const io = {
      ...bufferIo(workspace.base),
      ...(env === undefined ? {} : { env }),
      signal: controller.signal,
    }
    const argv = ['--policy', policyFile, '--listen', '0', ...flags, '--', ...server]
    const exited = runPlanMcp(argv, io)
    await expect.poll(() => io.err(), { timeout: TIMEOUT }).toMatch(/listening on http:\/\/\S+/)
    const url = new URL(/listening on (http:\/\/\S+)/.exec(io.err())?.[1] ?? '')
    return { url, io, controller, exited, policyFile }
  }

  it(
    'should run the built plan-mcp bin in front of the filesystem server, with an audit log',
    async () => {
      expect(existsSync(bin), `${bin} is missing: run pnpm build first`).toBe(true)
      const policyFile = join(workspace.base, 'policy.json')
      const auditFile = join(workspace.base, 'audit.jsonl')
      await writeFile(policyFile, JSON.stringify(filesystemPolicy(workspace.root)))
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [
          bin,
          ...['--policy', policyFile, '--audit', auditFile, '--'],
          ...[process.execPath, filesystemServerScript, workspace.root],
        ],
        stderr: 'pipe',
      })
      const client = new Client({ name: 'bin-test', version: '1.0.0' })
      await client.connect(transport)
      try {
        expect((await client.listTools()).tools).toHaveLength(3)
        const allowed = await client.callTool({
          name: 'read_text_file',
          arguments: { path: 'README.md' },
        })
        expect(textOf(allowed)).toBe('# Hello from the workspace\n')
        const refused = await client.callTool({
          name: 'read_text_file',
          arguments: { path: join(workspace.evil, 'secret.txt') },
        })
        expect(refused.isError).toBe(true)
        expect(textOf(refused)).toContain('path_outside_workspace')
      } finally {
        await client.close()
      }
      const verification = verifyAuditLog(await readFile(auditFile, 'utf8'))
      expect(verification.valid).toBe(true)
      const types = (await readFile(auditFile, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).event.type)
      expect(types).toContain('call_allowed')
      // a call the policy refuses statically is a rejected one-step plan
      expect(types).toContain('plan_rejected')
    },
    TIMEOUT,
  )

  it(
    'should guard a server reached over Streamable HTTP with --url',
    async () => {
      const remote = await startHttpShellServer()
      const policyFile = join(workspace.base, 'shell-policy.json')
      await writeFile(policyFile, JSON.stringify(shellPolicy(workspace.root)))
      const client = new Client({ name: 'bin-test', version: '1.0.0' })
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [bin, '--policy', policyFile, '--url', remote.url],
          stderr: 'pipe',
        }),
      )
      try {
        const allowed = await client.callTool({ name: 'shell', arguments: { command: 'ls' } })
        expect(textOf(allowed)).toBe('ran: ls')
        const refused = await client.callTool({
          name: 'shell',
          arguments: { command: 'ls; curl https://evil.example' },
        })
        expect(refused.isError).toBe(true)
        expect(textOf(refused)).toContain('command_list')
        expect(remote.log.commands).toEqual(['ls'])
      } finally {
        await client.close()
        await remote.close()
      }
    },
    TIMEOUT,
  )

  it(
    'should serve clients over Streamable HTTP with --listen and stop on SIGTERM',
    async () => {
      const policyFile = join(workspace.base, 'listen-policy.json')
      await writeFile(policyFile, JSON.stringify(filesystemPolicy(workspace.root)))
      const argv = ['--policy', policyFile, '--listen', '0', '--']
      const child = spawn(
        process.execPath,
        [bin, ...argv, process.execPath, filesystemServerScript, workspace.root],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      )
      const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)))
      let stderr = ''
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString()
      })
      await expect.poll(() => stderr, { timeout: TIMEOUT }).toMatch(/listening on http:\/\/\S+/)
      const url = new URL(/listening on (http:\/\/\S+)/.exec(stderr)?.[1] ?? '')
      const client = new Client({ name: 'http-bin-test', version: '1.0.0' })
      try {
        await client.connect(new StreamableHTTPClientTransport(url))
        const allowed = await client.callTool({
          name: 'read_text_file',
          arguments: { path: 'README.md' },
        })
        expect(textOf(allowed)).toBe('# Hello from the workspace\n')
        const refused = await client.callTool({
          name: 'read_text_file',
          arguments: { path: '.env' },
        })
        expect(refused.isError).toBe(true)
        await client.close()
      } finally {
        child.kill('SIGTERM')
      }
      expect(await exited).toBe(0)
    },
    TIMEOUT,
  )

  it(
    'should write a starting policy from the server’s tools with init, and not overwrite it',
    async () => {
      const output = join(workspace.base, 'generated.policy.json')
      const argv = ['init', '--output', output, '--root', workspace.root, '--']
      const server = [process.execPath, filesystemServerScript, workspace.root]
      const io = bufferIo(workspace.base)
      expect(await runPlanMcp([...argv, ...server], io)).toBe(0)
      const policy = JSON.parse(await readFile(output, 'utf8'))
      expect(policySchema.safeParse(policy).success).toBe(true)
      expect(policy.workspace.roots).toEqual([relative(workspace.base, workspace.root)])
      expect(policy.tools.read_text_file.args.path).toEqual({ type: 'path', access: 'read' })
      expect(policy.tools.write_file.args.path).toEqual({ type: 'path', access: 'write' })
      expect(policy.tools.move_file.args.destination).toEqual({ type: 'path', access: 'write' })
      expect(policy.tools.read_multiple_files.args.paths).toEqual({
        type: 'array',
        items: { type: 'path', access: 'read' },
      })
      expect(io.err()).toContain('Narrow it before use')
      const again = bufferIo(workspace.base)
      expect(await runPlanMcp([...argv, ...server], again)).toBe(2)
      expect(again.err()).toContain('--force')
    },
    TIMEOUT,
  )

  it(
    'should answer over its stdio and exit 0 once the client ends its input',
    async () => {
      const policyFile = join(workspace.base, 'stdio-policy.json')
      await writeFile(policyFile, JSON.stringify(filesystemPolicy(workspace.root)))
      const io = bufferIo(workspace.base)
      const running = runPlanMcp(
        ['--policy', policyFile, '--', process.execPath, filesystemServerScript, workspace.root],
        io,
      )
      const initialize = initializeRequest()
      ;(io.stdin as PassThrough).write(`${JSON.stringify(initialize)}\n`)
      await expect.poll(() => io.out(), { timeout: TIMEOUT }).toContain('"id":1')
      ;(io.stdin as PassThrough).end()
      expect(await running).toBe(0)
      expect(JSON.parse(io.out().split('\n')[0] ?? '').result.serverInfo.name).toBe(
        'secure-filesystem-server',
      )
    },
    TIMEOUT,
  )

  it.skipIf(bwrapMissing && process.env.CI !== 'true')(
    'should run the wrapped server itself in the OS sandbox with --sandbox',
    async () => {
      if (bwrapMissing) throw new Error('bubblewrap (bwrap) is required in CI')
      const policyFile = join(workspace.base, 'probe-policy.json')
      await writeFile(
        policyFile,
        JSON.stringify({
          version: 1,
          workspace: { roots: [workspace.root] },
          tools: { probe: {} },
        }),
      )
      const probe = async (sandboxed: boolean) => {
        const own = sandboxed
          ? ['--sandbox', ...codeFolders.flatMap((f) => ['--sandbox-read', f])]
          : []
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [bin, '--policy', policyFile, ...own, '--', process.execPath, probeServerScript],
          env: {
            ...(process.env as Record<string, string>),
            PROBE_TOKEN: 'host-token',
            PROBE_SECRET_FILE: join(workspace.outside, 'secret.txt'),
          },
          stderr: 'pipe',
        })
        const client = new Client({ name: 'probe-test', version: '1.0.0' })
        await client.connect(transport)
        try {
          return JSON.parse(textOf(await client.callTool({ name: 'probe', arguments: {} })))
        } finally {
          await client.close()
        }
      }
      // The same server without the sandbox sees the host: the control for the check below.
      expect(await probe(false)).toMatchObject({ token: 'host-token', secret: 'outside secret\n' })
      const inside = await probe(true)
      expect(inside.token).toBeNull()
      expect(inside.secret).toMatch(/^unreadable/)
      expect(inside.home).not.toBe(process.env.HOME)
    },
    TIMEOUT,
  )

  it('should refuse to listen beyond loopback without a bearer token, before listening', async () => {
    const policyFile = join(workspace.base, 'listen-policy.json')
    await writeFile(policyFile, JSON.stringify(filesystemPolicy(workspace.root)))
    const argv = ['--policy', policyFile, '--listen', '0', '--host', '0.0.0.0', '--', 'true']
    const bare = { ...bufferIo(workspace.base), env: { PATH: process.env.PATH } }
    expect(await runPlanMcp(argv, bare)).toBe(2)
    expect(bare.err()).toContain('PLAN_MCP_TOKEN')
    expect(bare.err()).not.toContain('listening')
    const weak = { ...bufferIo(workspace.base), env: { PLAN_MCP_TOKEN: 'secret' } }
    expect(await runPlanMcp(argv, weak)).toBe(2)
    expect(weak.err()).toContain('at least 32 characters')
    expect(weak.err()).not.toContain('secret')
    expect(weak.err()).not.toContain('listening')
  })

  it(
    'should require the PLAN_MCP_TOKEN bearer token from every --listen client when it is set',
    async () => {
      const token = 'b1d2'.repeat(8)
      const env = { ...process.env, PLAN_MCP_TOKEN: token }
      const { url, controller, exited } = await listen(
        [],
        [process.execPath, filesystemServerScript, workspace.root],
        env,
      )
      const refused = await fetch(url, { method: 'POST', body: '{}' })
      expect(refused.status).toBe(401)
      const client = new Client({ name: 'http-token-test', version: '1.0.0' })
      try {
        const headers = { authorization: `Bearer ${token}` }
        await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }))
        const allowed = await client.callTool({
          name: 'read_text_file',
          arguments: { path: 'README.md' },
        })
        expect(textOf(allowed)).toBe('# Hello from the workspace\n')
        await client.close()
      } finally {
        controller.abort()
      }
      expect(await exited).toBe(0)
    },
    TIMEOUT,
  )

  it(
    'should hold --listen to --max-sessions, and refuse a count that is not one with exit code 2',
    async () => {
      const policyFile = join(workspace.base, 'listen-policy.json')
      await writeFile(policyFile, JSON.stringify(filesystemPolicy(workspace.root)))
      const server = [process.execPath, filesystemServerScript, workspace.root]
      const wrong = bufferIo(workspace.base)
      const zero = ['--policy', policyFile, '--listen', '0', '--max-sessions', '0', '--']
      expect(await runPlanMcp([...zero, ...server], wrong)).toBe(2)
      expect(wrong.err()).toContain('--max-sessions "0" is not a whole number of at least 1')
      const { url, controller, exited } = await listen(['--max-sessions', '1'], server)
      const post = (headers: Record<string, string> = {}) =>
        fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...headers,
          },
          body: JSON.stringify(initializeRequest()),
        })
      try {
        // Clients that initialize and leave: the second closes the first to stay within one.
        const first = await post()
        await first.text()
        const id = first.headers.get('mcp-session-id') ?? ''
        expect(id).not.toBe('')
        const second = await post()
        await second.text()
        expect(second.status).toBe(200)
        expect((await post({ 'mcp-session-id': id })).status).toBe(404)
      } finally {
        controller.abort()
      }
      expect(await exited).toBe(0)
    },
    TIMEOUT,
  )

  it(
    'should close a --listen session idle for --session-idle seconds, with its server',
    async () => {
      const pidFile = join(workspace.base, 'idle-server.pid')
      // The server writes its process id where the test can watch it, then becomes the server.
      const script = `echo $$ > '${pidFile}' && exec '${process.execPath}' '${filesystemServerScript}' '${workspace.root}'`
      const idle = ['--session-idle', '1']
      const { url, controller, exited } = await listen(idle, ['sh', '-c', script])
      const post = (message: unknown, headers: Record<string, string> = {}) =>
        fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...headers,
          },
          body: JSON.stringify(message),
        })
      try {
        const opened = await post(initializeRequest())
        await opened.text()
        const id = opened.headers.get('mcp-session-id') ?? ''
        const pid = Number(await readFile(pidFile, 'utf8'))
        const running = () => {
          try {
            return process.kill(pid, 0)
          } catch {
            return false
          }
        }
        // Watched from outside: a request in the session would keep it from going idle.
        await expect.poll(running, { timeout: TIMEOUT, interval: 100 }).toBe(false)
        const ping = { jsonrpc: '2.0', id: 2, method: 'ping' }
        expect((await post(ping, { 'mcp-session-id': id })).status).toBe(404)
      } finally {
        controller.abort()
      }
      expect(await exited).toBe(0)
    },
    TIMEOUT,
  )

  it(
    'should write a keepalive comment every --keepalive seconds on a --listen event stream',
    async () => {
      const { url, controller, exited } = await listen(
        ['--keepalive', '1'],
        [process.execPath, filesystemServerScript, workspace.root],
      )
      const stream = new AbortController()
      try {
        const headers = {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        }
        const body = JSON.stringify(initializeRequest())
        const opened = await fetch(url, { method: 'POST', headers, body })
        await opened.text()
        const session = { ...headers, 'mcp-session-id': opened.headers.get('mcp-session-id') ?? '' }
        const events = await fetch(url, { headers: session, signal: stream.signal })
        expect(events.status).toBe(200)
        const reader = events.body?.pipeThrough(new TextDecoderStream()).getReader()
        let text = ''
        while (reader !== undefined && !text.includes(': keepalive\n\n')) {
          const { value, done } = await reader.read()
          if (done) break
          text += value
        }
        expect(text).toBe(': keepalive\n\n')
      } finally {
        stream.abort()
        controller.abort()
      }
      expect(await exited).toBe(0)
    },
    TIMEOUT,
  )

  it(
    'should hold resources/read to the workspace with --resources workspace, audited',
    async () => {
      const auditFile = join(workspace.base, 'listen-resources-audit.jsonl')
      const resources = ['--resources', 'workspace', '--audit', auditFile]
      const { url, controller, exited } = await listen(resources, [
        process.execPath,
        fileResourceScript,
      ])
      const client = new Client({ name: 'http-resources-test', version: '1.0.0' })
      try {
        await client.connect(new StreamableHTTPClientTransport(url))
        const readme = `file://${workspace.root}/README.md`
        const read = await client.readResource({ uri: readme })
        expect(read.contents).toEqual([{ uri: readme, text: '# Hello from the workspace\n' }])
        const outside = `file://${workspace.root}/%2e%2e/outside/secret.txt`
        await expect(client.readResource({ uri: outside })).rejects.toMatchObject({
          code: -32602,
          message: expect.stringContaining('path_invalid at uri'),
        })
        await client.close()
      } finally {
        controller.abort()
      }
      expect(await exited).toBe(0)
      const log = await readFile(auditFile, 'utf8')
      expect(verifyAuditLog(log).valid).toBe(true)
      const events = log
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).event)
      expect(events.map((event) => [event.type, event.uri])).toEqual([
        ['resource_allowed', `file://${workspace.root}/README.md`],
        ['resource_completed', `file://${workspace.root}/README.md`],
        ['resource_denied', `file://${workspace.root}/%2e%2e/outside/secret.txt`],
      ])
    },
    TIMEOUT,
  )

  it('should stop with exit code 2 for a --resource-scheme that is not a scheme, not listening on', async () => {
    const policyFile = join(workspace.base, 'listen-policy.json')
    await writeFile(policyFile, JSON.stringify(filesystemPolicy(workspace.root)))
    const io = bufferIo(workspace.base)
    const flags = ['--resources', 'workspace', '--resource-scheme', 'https:']
    const argv = ['--policy', policyFile, '--listen', '0', ...flags, '--', 'true']
    expect(await runPlanMcp(argv, io)).toBe(2)
    expect(io.err()).toContain('not a URI scheme')
    const stdio = bufferIo(workspace.base)
    expect(
      await runPlanMcp(
        argv.filter((_, index) => index !== 2 && index !== 3),
        stdio,
      ),
    ).toBe(2)
    expect(stdio.err()).toContain('not a URI scheme')
  })
})
