import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { formatIssues, PlanError } from '@plan/core'
import { createFileAuditSink, loadPolicy } from '@plan/core/node'
import type { McpGuardOptions } from '../guard/create-mcp-call-guard.js'
import type { McpServerCommand } from '../proxy/create-mcp-guard-proxy.js'
import { spawnServerProcess } from '../proxy/spawn-server.js'
import { loadSandboxSpawn } from './load-sandbox.js'
import type { ProxyCommand } from './parse-cli-args.js'
import { definedEnv, type PlanMcpIo } from './plan-mcp-io.js'

/** What both proxy modes need: the guard's options and how to reach the server. */
export interface ProxySetup {
  readonly guard: Omit<McpGuardOptions, 'state'> & { readonly onError: (error: Error) => void }
  /** The server of a new session: a command to start, or a fresh HTTP client transport. */
  readonly server: () => McpServerCommand | Transport
}

function argumentError(flag: string, message: string, hint: string): PlanError {
  return new PlanError(message, {
    issues: [{ code: 'invalid_arguments', message, path: [flag], hint }],
  })
}

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
    throw argumentError(
      '--url',
      `--url ${JSON.stringify(text)} is not a URL.`,
      'Pass https://host/mcp.',
    )
  }
}

/**
 * Loads the policy, plan, audit log and sandbox named on the command line. Throws `PlanError`
 * for any that is unusable.
 */
export async function loadProxySetup(command: ProxyCommand, io: PlanMcpIo): Promise<ProxySetup> {
  const policy = await loadPolicy(resolve(io.cwd, command.policy))
  const plan =
    command.plan === undefined ? undefined : await readPlan(resolve(io.cwd, command.plan))
  const audit =
    command.audit === undefined ? undefined : createFileAuditSink(resolve(io.cwd, command.audit))
  const spawn = command.sandbox ? await loadSandboxSpawn(policy) : spawnServerProcess
  const url = command.url === undefined ? undefined : parseUrl(command.url)
  const env = definedEnv(io.env)
  return {
    guard: {
      policy,
      ...(plan === undefined ? {} : { plan }),
      ...(audit === undefined ? {} : { audit }),
      onError: (error) => io.stderr.write(`plan-mcp: ${error.message}\n`),
      onDecision: (event) => {
        if (!event.allowed)
          io.stderr.write(`plan-mcp: refused ${event.tool}\n${formatIssues(event.issues)}\n`)
      },
    },
    server: () =>
      url === undefined
        ? { command: command.server, cwd: io.cwd, env, spawn }
        : new StreamableHTTPClientTransport(url),
  }
}
