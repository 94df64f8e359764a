import { type ParseArgsOptionsConfig, parseArgs } from 'node:util'
import type { McpResourcesMode } from '../guard/resource-check.js'
import { MAX_TIMER_MS } from '../proxy/idle-timer.js'

/** `plan-mcp --policy … -- <server command>`: run the proxy. */
export interface ProxyCommand {
  readonly kind: 'proxy'
  readonly policy: string
  readonly plan: string | undefined
  readonly audit: string | undefined
  readonly sandbox: boolean
  /** More folders the sandboxed server may read (never write): its own code, for one. */
  readonly sandboxRead: readonly string[]
  /** The server's argv, when the proxy starts it (empty with `url`). */
  readonly server: readonly string[]
  /** The server's Streamable HTTP endpoint, when it runs elsewhere. */
  readonly url: string | undefined
  /** Serve clients over Streamable HTTP on this port (0: any free port) instead of stdio. */
  readonly listen: number | undefined
  /** The address to listen on. Default `127.0.0.1`. */
  readonly host: string
  /** With `listen`: sessions open at once (the HTTP handler's `maxSessions`). */
  readonly maxSessions: number | undefined
  /** With `listen`: seconds a session may stay idle before it is closed; 0: never. */
  readonly sessionIdle: number | undefined
  /** With `listen`: seconds between keepalive comments on open event streams; 0: none. */
  readonly keepalive: number | undefined
  /**
   * Whether `resources/read` is held to the workspace (`workspace`) or passed (`pass`);
   * undefined: as the policy's `mcp.resources` says.
   */
  readonly resources: McpResourcesMode | undefined
  /** With `resources: 'workspace'`: URI schemes passed unchecked besides `file:`. */
  readonly resourceSchemes: readonly string[]
  /** The server's name in the policy: its tools are the policy's `<name>__<tool>` entries. */
  readonly serverName: string | undefined
  /** A PostgreSQL URL: the guard's state and the shared budgets live there. */
  readonly store: string | undefined
  /** With `store`: the run's id in it; undefined: a new one per process. */
  readonly runId: string | undefined
  /** With `store`: the run's keys for shared budgets (`--key tenant=acme`). */
  readonly keys: Readonly<Record<string, string>>
}

/** `plan-mcp init [--output file] [--root dir] [--force] -- <server command>`. */
export interface InitCommand {
  readonly kind: 'init'
  /** Where to write the policy; `-` prints it. */
  readonly output: string
  readonly root: string
  readonly force: boolean
  /** The server's name in the policy: entries are written as `<name>__<tool>`. */
  readonly serverName: string | undefined
  readonly server: readonly string[]
}

/** `plan-mcp pin --policy <file> [--server-name <name>] [--write] -- <server command>`. */
export interface PinCommand {
  readonly kind: 'pin'
  readonly policy: string
  readonly serverName: string | undefined
  /** Record the new pins; without it, only print the diff (exit 1 when a pin differs). */
  readonly write: boolean
  readonly server: readonly string[]
}

/** What the command line asks for, or why it cannot be understood. */
export type ParsedCli =
  | {
      readonly success: true
      readonly command: ProxyCommand | InitCommand | PinCommand | { kind: 'help' }
    }
  | { readonly success: false; readonly message: string }

/** The usage text. */
export const USAGE = `Usage:
  plan-mcp --policy <policy.json> [--plan <plan.json>] [--audit <audit.jsonl>] [--sandbox [--sandbox-read <dir>]…] [--resources workspace|pass [--resource-scheme <scheme>]…] [--server-name <name>] -- <server command> [args…]
      Runs the MCP server behind the @plan guard, speaking MCP over stdio on both sides;
      with --sandbox the server itself runs in an OS sandbox built from the policy;
      resources/read and prompts/get go through only as the policy's mcp.resources and
      mcp.prompts list them (a file: URI must name a path tools may read); with
      --resources workspace, file: URIs so checked and each --resource-scheme go through;
      reads are audited and counted against budgets.maxCalls, as tool calls are;
      a listed tool whose definition differs from its pin in the policy is withheld;
      with --server-name, the server's tools are the policy's <name>__<tool> entries.
  plan-mcp --policy <policy.json> --store <postgres://…> [--run-id <id>] [--key <name=value>]… [… as above]
      Keeps the guard's state in PostgreSQL before every call, so the run's budgets survive a
      restart with the same --run-id, and the policy's shared budgets (per --key) hold across
      every plan-mcp on that database.
  plan-mcp --policy <policy.json> [--plan <plan.json>] [--audit <audit.jsonl>] --url <https://host/mcp>
      Guards a server reached over Streamable HTTP; the client still speaks stdio.
  plan-mcp --policy <policy.json> --listen <port> [--host 127.0.0.1] [--max-sessions <n>] [--session-idle <seconds>] [--keepalive <seconds>] [… as above]
      Serves clients over Streamable HTTP at http://<host>:<port>/mcp, one server per session,
      at most --max-sessions at once (default 64), each closed after --session-idle seconds
      with no request or event stream open (default 1800; 0: never); open event streams get a
      keepalive comment every --keepalive seconds (default 15; 0: none), so a client that
      vanished without closing its connection is noticed;
      with PLAN_MCP_TOKEN set, every request must send Authorization: Bearer <token>
      (required for a --host beyond loopback).
  plan-mcp init [--output <policy.json>] [--root <dir>] [--force] [--server-name <name>] -- <server command> [args…]
      Lists the server's tools and writes a starting policy for you to narrow, each tool
      pinned to its definition (kept beside it in <policy>.tools.json).
  plan-mcp pin --policy <policy.json> [--server-name <name>] [--write] -- <server command> [args…]
      Prints the diff of each tool whose definition no longer matches its pin (exit 1 if
      any); after you review it, --write records the new pins.`

/** The flags of `plan-mcp init`. */
const INIT_OPTIONS = {
  output: { type: 'string', short: 'o' },
  root: { type: 'string' },
  force: { type: 'boolean' },
  'server-name': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsOptionsConfig

/** The flags of `plan-mcp pin`. */
const PIN_OPTIONS = {
  policy: { type: 'string' },
  'server-name': { type: 'string' },
  write: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsOptionsConfig

/** The flags of the proxy (`plan-mcp --policy …`). */
const PROXY_OPTIONS = {
  policy: { type: 'string' },
  plan: { type: 'string' },
  audit: { type: 'string' },
  sandbox: { type: 'boolean' },
  'sandbox-read': { type: 'string', multiple: true },
  url: { type: 'string' },
  listen: { type: 'string' },
  host: { type: 'string' },
  'max-sessions': { type: 'string' },
  'session-idle': { type: 'string' },
  keepalive: { type: 'string' },
  resources: { type: 'string' },
  'resource-scheme': { type: 'string', multiple: true },
  'server-name': { type: 'string' },
  store: { type: 'string' },
  'run-id': { type: 'string' },
  key: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsOptionsConfig

type Values = Readonly<Record<string, unknown>>

/** A delay in whole seconds, up to the longest a Node timer keeps. */
const MAX_DELAY_SECONDS = Math.floor(MAX_TIMER_MS / 1000)
const DELAY_SECONDS = {
  min: 0,
  max: MAX_DELAY_SECONDS,
  what: `a whole number of seconds from 0 to ${MAX_DELAY_SECONDS}`,
}

/** The proxy flags that take a whole number, with its bounds: all only for `--listen`. */
const LISTEN_COUNTS = {
  'max-sessions': { min: 1, max: Number.MAX_SAFE_INTEGER, what: 'a whole number of at least 1' },
  'session-idle': DELAY_SECONDS,
  keepalive: DELAY_SECONDS,
} as const

/**
 * Rules between the proxy's flags, in the order they are checked: each gives the message of a
 * usage error, or undefined when it holds.
 */
const PROXY_RULES: readonly ((values: Values, server: readonly string[]) => string | undefined)[] =
  [
    (values, server) =>
      values.url !== undefined && server.length > 0
        ? 'give either --url or a server command after --, not both'
        : undefined,
    (values) =>
      values.url !== undefined && values.sandbox === true
        ? '--sandbox starts the server command in a sandbox; it cannot apply to --url'
        : undefined,
    (values) =>
      values['sandbox-read'] !== undefined && values.sandbox !== true
        ? '--sandbox-read names folders the sandboxed server may read; add --sandbox'
        : undefined,
    (values, server) =>
      server.length === 0 && values.url === undefined
        ? 'missing the server command after --'
        : undefined,
    (values) =>
      values.resources !== undefined &&
      values.resources !== 'pass' &&
      values.resources !== 'workspace'
        ? `--resources ${JSON.stringify(values.resources)} is neither pass nor workspace`
        : undefined,
    (values) =>
      values['resource-scheme'] !== undefined && values.resources !== 'workspace'
        ? '--resource-scheme names schemes --resources workspace lets through; add --resources workspace'
        : undefined,
    (values) =>
      values.store !== undefined && !/^postgres(ql)?:\/\//.test(String(values.store))
        ? `--store ${JSON.stringify(values.store)} is not a postgres:// URL`
        : undefined,
    (values) => {
      const flag = ['run-id', 'key'].find((name) => values[name] !== undefined)
      return flag !== undefined && values.store === undefined
        ? `--${flag} names the run in a guard store; add --store postgres://…`
        : undefined
    },
    (values) => {
      const bad = ((values.key as string[] | undefined) ?? []).find(
        (pair) => !/^[^=\s]+=\S+$/.test(pair),
      )
      return bad !== undefined ? `--key ${JSON.stringify(bad)} is not name=value` : undefined
    },
    (values) => {
      const flag = Object.keys(LISTEN_COUNTS).find((name) => values[name] !== undefined)
      return flag !== undefined && values.listen === undefined
        ? `--${flag} applies to the sessions of --listen; add --listen <port>`
        : undefined
    },
  ]

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

function failure(message: string): ParsedCli & { success: false } {
  return { success: false, message }
}

/** A whole number written in decimal digits only (no sign, exponent, hex or blanks). */
function wholeNumber(value: string): number | undefined {
  if (!/^[0-9]+$/.test(value)) return undefined
  const number = Number(value)
  return Number.isSafeInteger(number) ? number : undefined
}

/** The port of `--listen`, or why it is not one. */
function portOf(listen: string | undefined): { value: number | undefined } | { message: string } {
  if (listen === undefined) return { value: undefined }
  const port = Number(listen)
  return Number.isInteger(port) && port >= 0 && port <= 65535
    ? { value: port }
    : { message: `--listen ${JSON.stringify(listen)} is not a port (0 to 65535)` }
}

/** The value of a flag of {@link LISTEN_COUNTS}, or why it is not one. */
function countOf(
  values: Values,
  flag: keyof typeof LISTEN_COUNTS,
): { value: number | undefined } | { message: string } {
  const raw = text(values[flag])
  if (raw === undefined) return { value: undefined }
  const { min, max, what } = LISTEN_COUNTS[flag]
  const count = wholeNumber(raw)
  return count !== undefined && count >= min && count <= max
    ? { value: count }
    : { message: `--${flag} ${JSON.stringify(raw)} is not ${what}` }
}

/** `parseArgs` over `args` with `options`, or its complaint as a failure. */
function readFlags(
  args: string[],
  options: ParseArgsOptionsConfig,
): { values: Values; positionals: string[] } | ParsedCli {
  try {
    return parseArgs({ args, strict: true, allowPositionals: true, options })
  } catch (error) {
    return failure((error as Error).message)
  }
}

function initCommand(values: Values, server: readonly string[]): ParsedCli {
  if (server.length === 0) return failure('missing the server command after --')
  return {
    success: true,
    command: {
      kind: 'init',
      output: text(values.output) ?? 'plan-mcp.policy.json',
      root: text(values.root) ?? '.',
      force: values.force === true,
      serverName: text(values['server-name']),
      server,
    },
  }
}

function pinCommand(values: Values, server: readonly string[]): ParsedCli {
  if (server.length === 0) return failure('missing the server command after --')
  if (typeof values.policy !== 'string') return failure('missing --policy <policy.json> to pin')
  return {
    success: true,
    command: {
      kind: 'pin',
      policy: values.policy,
      serverName: text(values['server-name']),
      write: values.write === true,
      server,
    },
  }
}

function proxyCommand(values: Values, server: readonly string[]): ParsedCli {
  for (const rule of PROXY_RULES) {
    const message = rule(values, server)
    if (message !== undefined) return failure(message)
  }
  const port = portOf(text(values.listen))
  if ('message' in port) return failure(port.message)
  const maxSessions = countOf(values, 'max-sessions')
  if ('message' in maxSessions) return failure(maxSessions.message)
  const sessionIdle = countOf(values, 'session-idle')
  if ('message' in sessionIdle) return failure(sessionIdle.message)
  const keepalive = countOf(values, 'keepalive')
  if ('message' in keepalive) return failure(keepalive.message)
  if (typeof values.policy !== 'string')
    return failure(
      'missing --policy <policy.json> (run `plan-mcp init -- <server command>` to write one)',
    )
  return {
    success: true,
    command: {
      kind: 'proxy',
      policy: values.policy,
      plan: text(values.plan),
      audit: text(values.audit),
      sandbox: values.sandbox === true,
      sandboxRead: (values['sandbox-read'] as string[] | undefined) ?? [],
      server,
      url: text(values.url),
      listen: port.value,
      host: text(values.host) ?? '127.0.0.1',
      maxSessions: maxSessions.value,
      sessionIdle: sessionIdle.value,
      keepalive: keepalive.value,
      resources:
        values.resources === 'workspace' || values.resources === 'pass'
          ? values.resources
          : undefined,
      resourceSchemes: (values['resource-scheme'] as string[] | undefined) ?? [],
      serverName: text(values['server-name']),
      store: text(values.store),
      runId: text(values['run-id']),
      keys: Object.fromEntries(
        ((values.key as string[] | undefined) ?? []).map((pair) => {
          const at = pair.indexOf('=')
          return [pair.slice(0, at), pair.slice(at + 1)]
        }),
      ),
    },
  }
}

/** Parses `plan-mcp`'s arguments; everything after the first `--` is the server's argv. */
export function parseCliArgs(argv: readonly string[]): ParsedCli {
  const separator = argv.indexOf('--')
  const own = separator < 0 ? [...argv] : argv.slice(0, separator)
  const server = separator < 0 ? [] : argv.slice(separator + 1)
  const subcommand = own[0] === 'init' || own[0] === 'pin' ? own[0] : undefined
  const read =
    subcommand === undefined
      ? readFlags(own, PROXY_OPTIONS)
      : readFlags(own.slice(1), subcommand === 'init' ? INIT_OPTIONS : PIN_OPTIONS)
  if ('success' in read) return read
  const { values, positionals } = read
  if (values.help === true) return { success: true, command: { kind: 'help' } }
  if (positionals.length > 0)
    return failure(
      `unexpected argument ${JSON.stringify(positionals[0])}; put the server command after --`,
    )
  if (subcommand === 'init') return initCommand(values, server)
  return subcommand === 'pin' ? pinCommand(values, server) : proxyCommand(values, server)
}
