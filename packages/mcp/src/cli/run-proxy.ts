import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import {
  type AuditSink,
  createFileAuditSink,
  formatIssues,
  loadPolicy,
  PlanError,
} from '@plan/core'
import { createMcpGuardProxy } from '../proxy/create-mcp-guard-proxy.js'
import { spawnServerProcess } from '../proxy/spawn-server.js'
import { loadSandboxSpawn } from './load-sandbox.js'
import type { ProxyCommand } from './parse-cli-args.js'
import { definedEnv, EXIT_OK, type PlanMcpIo } from './plan-mcp-io.js'

async function readPlan(file: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, 'utf8'))
  } catch (error) {
    const message = `Cannot read the plan file ${file}: ${(error as Error).message}`
    throw new PlanError(message, { issues: [{ code: 'invalid_plan', message, path: [] }] })
  }
}

function parseUrl(text: string): URL {
  try {
    return new URL(text)
  } catch {
    const message = `--url ${JSON.stringify(text)} is not a URL.`
    throw new PlanError(message, {
      issues: [
        { code: 'invalid_arguments', message, path: ['--url'], hint: 'Pass https://host/mcp.' },
      ],
    })
  }
}

/**
 * Runs the proxy until the client or the server closes: MCP over `io.stdin`/`io.stdout`
 * towards the client, the server started from `command.server` or reached at `command.url`. Throws `PlanError` for an
 * unusable policy, plan, audit log or sandbox.
 */
export async function runProxy(command: ProxyCommand, io: PlanMcpIo): Promise<number> {
  const policy = await loadPolicy(resolve(io.cwd, command.policy))
  const plan =
    command.plan === undefined ? undefined : await readPlan(resolve(io.cwd, command.plan))
  const audit: AuditSink | undefined =
    command.audit === undefined ? undefined : createFileAuditSink(resolve(io.cwd, command.audit))
  const spawn = command.sandbox ? await loadSandboxSpawn(policy) : spawnServerProcess
  const server =
    command.url === undefined
      ? { command: command.server, cwd: io.cwd, env: definedEnv(io.env), spawn }
      : new StreamableHTTPClientTransport(parseUrl(command.url))
  const proxy = await createMcpGuardProxy({
    policy,
    ...(plan === undefined ? {} : { plan }),
    ...(audit === undefined ? {} : { audit }),
    client: new StdioServerTransport(io.stdin, io.stdout),
    server,
    onError: (error) => io.stderr.write(`plan-mcp: ${error.message}\n`),
    onDecision: (event) => {
      if (!event.allowed)
        io.stderr.write(`plan-mcp: refused ${event.tool}\n${formatIssues(event.issues)}\n`)
    },
  })
  // the stdio server transport does not report the end of its input: the client is gone
  io.stdin.once('end', () => void proxy.close())
  await proxy.closed
  return EXIT_OK
}
