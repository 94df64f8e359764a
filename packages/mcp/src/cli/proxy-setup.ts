import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { createFileAuditSink } from '@plan/audit/node'
import {
  type AdapterGuardSettings,
  type AdapterOptions,
  type AdapterPlan,
  type CallDecisionEvent,
  formatIssues,
  PlanError,
} from '@plan/core'
import { isWithin } from '@plan/core/adapter'
import { loadPolicy } from '@plan/core/node'
import type { McpGuardSettings } from '../guard/create-mcp-call-guard.js'
import type { McpServerCommand } from '../proxy/create-mcp-guard-proxy.js'
import { spawnServerProcess } from '../proxy/spawn-server.js'
import { loadSandboxSpawn } from './load-sandbox.js'
import type { ProxyCommand } from './parse-cli-args.js'
import { definedEnv, type PlanMcpIo } from './plan-mcp-io.js'

/** What both proxy modes need: the guard's options and how to reach the server. */
export interface ProxySetup {
  readonly guard: AdapterOptions<CallDecisionEvent> &
    AdapterGuardSettings &
    Omit<McpGuardSettings, 'state'> & { readonly onError: (error: Error) => void }
  /** The server of a new session: a command to start, or a fresh HTTP client transport. */
  readonly server: () => McpServerCommand | Transport
  /** Whether a sandboxed server ended with a non-zero exit code or a signal. */
  readonly serverFailed: () => boolean
}

function argumentError(flag: string, message: string, hint: string): PlanError {
  return new PlanError(message, {
    issues: [{ code: 'invalid_arguments', message, path: [flag], hint }],
  })
}

/** The plan in a JSON file; the guard compiles it against the policy, so its shape is checked there. */
async function readPlan(file: string): Promise<AdapterPlan> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as AdapterPlan
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

/** How long a window `plan-mcp` counts denials in when the policy names none, in seconds. */
const SESSION_DENIAL_WINDOW_SECONDS = 600

type LoadedPolicy = Awaited<ReturnType<typeof loadPolicy>>

/**
 * The policy with a window for its denial budget: a `plan-mcp` run is a whole client session,
 * which denials counted per run would stop for good. A window the policy names is kept.
 */
function withDenialWindow(resolved: LoadedPolicy): LoadedPolicy {
  const budgets = resolved.policy.budgets
  if (budgets.denialWindowSeconds !== undefined) return resolved
  const windowed = { ...budgets, denialWindowSeconds: SESSION_DENIAL_WINDOW_SECONDS }
  return { ...resolved, policy: { ...resolved.policy, budgets: windowed } }
}

/**
 * Loads the policy, plan, audit log and sandbox named on the command line. Throws `PlanError`
 * for any that is unusable.
 */
export async function loadProxySetup(command: ProxyCommand, io: PlanMcpIo): Promise<ProxySetup> {
  const policy = withDenialWindow(await loadPolicy(resolve(io.cwd, command.policy)))
  const plan =
    command.plan === undefined ? undefined : await readPlan(resolve(io.cwd, command.plan))
  const audit =
    command.audit === undefined ? undefined : createFileAuditSink(resolve(io.cwd, command.audit))
  let serverFailed = false
  const spawn = command.sandbox
    ? await loadSandboxSpawn(policy, {
        readPaths: command.sandboxRead.map((folder) => resolve(io.cwd, folder)),
        stderr: io.stderr,
        onServerExit: (report) => {
          serverFailed = true
          io.stderr.write(report)
        },
      })
    : spawnServerProcess
  const url = command.url === undefined ? undefined : parseUrl(command.url)
  // A sandboxed server gets the sandbox's allow-listed environment (policy `sandbox.env`), not ours.
  const env = command.sandbox ? {} : definedEnv(io.env)
  // A sandboxed server can only start inside the workspace: outside it, in the first root.
  const inWorkspace = policy.scope.roots.some((root) => isWithin(root, io.cwd))
  const cwd = command.sandbox && !inWorkspace ? (policy.scope.roots[0] ?? io.cwd) : io.cwd
  return {
    guard: {
      policy,
      ...(plan === undefined ? {} : { plan }),
      ...(audit === undefined ? {} : { audit }),
      ...(command.resources === undefined ? {} : { resources: command.resources }),
      ...(command.serverName === undefined ? {} : { serverName: command.serverName }),
      onToolWithheld: (tools) => {
        for (const tool of tools)
          io.stderr.write(`plan-mcp: withheld ${tool.tool}\n${formatIssues([tool.issue])}\n`)
      },
      ...(command.resourceSchemes.length === 0 ? {} : { resourceSchemes: command.resourceSchemes }),
      onError: (error) => io.stderr.write(`plan-mcp: ${error.message}\n`),
      onDecision: (event) => {
        if (!event.allowed)
          io.stderr.write(`plan-mcp: refused ${event.tool}\n${formatIssues(event.issues)}\n`)
      },
    },
    server: () =>
      url === undefined
        ? { command: command.server, cwd, env, spawn }
        : new StreamableHTTPClientTransport(url),
    serverFailed: () => serverFailed,
  }
}
