import { commandReads } from '@plan/shell'
import { createIssue, type PlanIssue } from '@plan/shell/common'
import type { TaintedPolicy } from '../schema/tainted-schema.js'
import type { JsonObject } from '../types/json-value.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import type { TaintState } from '../types/taint-state.js'
import { commandArgv } from '../util/command-parser.js'
import { hostAllowed } from '../util/host-allowed.js'
import { runIssue } from '../util/run-issue.js'
import { matchesGlob } from './match-glob.js'
import { type RoleValue, roleValues } from './role-values.js'
import { commandReadsSensitive, type SensitivePaths, sensitivePaths } from './sensitive-reads.js'
import { workspaceRelative } from './workspace-relative.js'

/** The decision about one call of a per-turn run. */
export interface TaintedCallCheck {
  readonly issues: readonly PlanIssue[]
  /** The call reads a sensitive path. */
  readonly readsSensitive: boolean
  /** The call writes, runs a command or reaches a URL. */
  readonly acts: boolean
}

/** What a call's string argument does: the tainted-run rules limit all but reading. */
type SinkKind = RoleValue['role']

function urlHostAllowed(url: string, hosts: readonly string[]): boolean {
  let host: string
  try {
    host = new URL(url).hostname
  } catch {
    return false
  }
  return hostAllowed(host, hosts)
}

function commandAllowed(argv: readonly string[], commands: readonly string[]): boolean {
  return commands.some((entry) => {
    const words = entry.trim().split(/\s+/u)
    return words.length <= argv.length && words.every((word, index) => argv[index] === word)
  })
}

/** Each limited kind of sink: how a refusal names it, and the list that allows it. */
const SINK_LISTS = {
  command: ['commands', 'commands'],
  write: ['writes', 'writes'],
  url: ['network hosts', 'hosts'],
} as const satisfies Record<Exclude<SinkKind, 'read'>, readonly [string, keyof TaintedPolicy]>

/** `untrusted output (from file:README.md, url:docs.example.com)`: what the reviewer must see. */
function untrustedOutput(state: TaintState, first = 'Untrusted'): string {
  const sources = state.sources ?? []
  if (sources.length === 0) return `${first} output`
  const shown = sources.slice(0, 4).join(', ')
  return `${first} output (from ${shown}${sources.length > 4 ? ` and ${sources.length - 4} more` : ''})`
}

function allowlistIssue(
  tainted: TaintedPolicy,
  sink: RoleValue,
  kind: Exclude<SinkKind, 'read'>,
  stepId: string,
  state: TaintState,
): PlanIssue {
  const [name, key] = SINK_LISTS[kind]
  const list = tainted[key]
  const shown = sink.value.length > 120 ? `${sink.value.slice(0, 120)}…` : sink.value
  const hint =
    list.length === 0
      ? `No ${name} are allowed after reading untrusted output. Finish with what you have and tell the user which step is left for them.`
      : `Allowed now: ${list.join(', ')}. Use one of them, or finish and tell the user which step is left for them.`
  return createIssue(
    'tainted_run',
    `${untrustedOutput(state)} is in this run's context, so ${name} are limited; ${JSON.stringify(shown)} is not on the list.`,
    ['args', ...sink.path],
    hint,
    stepId,
  )
}

/** What a call reads and does, for the tainted-run rules. */
function readCall(
  compiler: PlanCompiler,
  tool: string,
  sinks: readonly RoleValue[],
  sensitive: SensitivePaths,
  roots: readonly string[],
): { readsSensitive: boolean; acts: boolean } {
  // A tool that searches or walks a folder reads every file beneath it.
  const walks = /search|grep|find|tree|glob|walk/iu.test(tool)
  let readsSensitive = false
  let acts = false
  for (const sink of sinks) {
    if (sink.role === 'command') {
      const argv = commandArgv(compiler, sink.value)
      readsSensitive ||= argv !== undefined && commandReadsSensitive(argv, sensitive, roots)
      acts ||= argv === undefined || !commandReads(argv).readOnly
      continue
    }
    if (sink.role !== 'read') acts = true
    if (sink.role === 'url') continue
    const inside = workspaceRelative(sink.value, roots)
    if (inside === undefined) continue
    readsSensitive ||=
      sensitive.file(inside) || (walks && sink.role === 'read' && sensitive.tree(inside))
  }
  return { readsSensitive, acts }
}

/**
 * Once a run holds sensitive data, a URL must be one the policy declares, exactly. The issue
 * is `untrusted_flow`, not `tainted_run`: a reviewer sees a URL, not which secret its query,
 * path or pieces carry, so the refusal is one no human can judge from the call and it is
 * never put to one (`onRefuse: 'ask'` asks only about `tainted_run`).
 */
function egressIssues(
  tainted: TaintedPolicy,
  sinks: readonly RoleValue[],
  stepId: string,
): PlanIssue[] {
  const declared = new Set(tainted.urls.map(normalUrl))
  return sinks
    .filter((sink) => sink.role === 'url' && !declared.has(normalUrl(sink.value)))
    .map((sink) =>
      createIssue(
        'untrusted_flow',
        `This run has read sensitive data, so it may reach only the URLs the policy declares; ${JSON.stringify(sink.value.slice(0, 120))} is not one of them.`,
        ['args', ...sink.path],
        tainted.urls.length === 0
          ? 'No URL may be reached after reading sensitive data. Finish with what you have.'
          : `Declared: ${tainted.urls.join(', ')}. Use one of them as it is, or finish.`,
        stepId,
      ),
    )
}

function normalUrl(value: string): string {
  try {
    return new URL(value).href
  } catch {
    return value
  }
}

/**
 * Checks one call of a per-turn run against `trust.tainted`: in `allowlist` mode, once the context
 * is tainted, every command, write path and URL must be on the lists; in `rule-of-two` mode, a call
 * may not bring together untrusted input, sensitive data and an action (write, command, URL). In
 * both, once the run has read sensitive data (by any tool, a command's operands and recursive reads
 * included), a URL must be one of `urls`. Pure: the caller keeps the {@link TaintState}.
 */
export function checkTaintedCall(
  compiler: PlanCompiler,
  tool: string,
  stepId: string,
  args: JsonObject,
  state: TaintState,
  /** The workspace roots to read paths against; the real roots for paths resolved on disk. */
  roots: readonly string[] = compiler.policy.scope.roots,
): TaintedCallCheck {
  const tainted = compiler.policy.policy.trust.tainted
  const policyTool = compiler.policy.tools.get(tool)
  if (tainted === undefined || policyTool === undefined)
    return { issues: [], readsSensitive: false, acts: false }
  const sinks = roleValues(policyTool, args)
  const sensitive = sensitivePaths(tainted, compiler.policy.scope, roots)
  const { readsSensitive, acts } = readCall(compiler, tool, sinks, sensitive, roots)
  const egress = state.sensitive || readsSensitive ? egressIssues(tainted, sinks, stepId) : []
  if (tainted.mode === 'rule-of-two') {
    const combined = {
      untrusted: state.untrusted,
      sensitive: state.sensitive || readsSensitive,
      acted: state.acted || acts,
    }
    if (!(combined.untrusted && combined.sensitive && combined.acted))
      return { issues: egress, readsSensitive, acts }
    const issue = runIssue(
      'tainted_run',
      readsSensitive
        ? `This run has read ${untrustedOutput(state, 'untrusted')} and has acted (written, run a command or reached a URL); it may not read sensitive data as well (rule of two).`
        : `This run has read ${untrustedOutput(state, 'untrusted')} and sensitive data; it may not write, run commands or reach URLs as well (rule of two).`,
      'Finish with what you have and tell the user which step is left for them.',
      stepId,
    )
    // The egress refusals stay: they keep a human from being asked about the URL.
    return { issues: [issue, ...egress], readsSensitive, acts }
  }
  if (!state.untrusted) return { issues: egress, readsSensitive, acts }
  return {
    issues: [...allowlistIssues(compiler, tainted, sinks, stepId, roots, state), ...egress],
    readsSensitive,
    acts,
  }
}

/** Allowlist mode in a tainted run: each command, write path and URL must be on its list. */
function allowlistIssues(
  compiler: PlanCompiler,
  tainted: TaintedPolicy,
  sinks: readonly RoleValue[],
  stepId: string,
  roots: readonly string[],
  state: TaintState,
): PlanIssue[] {
  const issues: PlanIssue[] = []
  for (const sink of sinks) {
    if (sink.role === 'read') continue
    let allowed = false
    if (sink.role === 'url') allowed = urlHostAllowed(sink.value, tainted.hosts)
    else if (sink.role === 'write') {
      const inside = workspaceRelative(sink.value, roots)
      allowed = inside !== undefined && tainted.writes.some((glob) => matchesGlob(inside, glob))
    } else {
      const checked = compiler.checkCommand(sink.value)
      allowed = checked.allowed && commandAllowed(checked.argv, tainted.commands)
    }
    if (!allowed) issues.push(allowlistIssue(tainted, sink, sink.role, stepId, state))
  }
  return issues
}
