import type { PlanCompiler, PlanIssue, Policy, ProgramRule, ToolPolicy } from '@plan/core'
import {
  type DiffCategory,
  describeProbe,
  generateProbes,
  type Probe,
  probeCategory,
} from './policy-probes.js'

/** Whether a change lets more through (`looser`) or less (`tighter`). */
export type DiffDirection = 'looser' | 'tighter'

/** One probe that the two policies decide differently. */
export interface FlippedProbe {
  readonly probe: string
  /** The issue code of the policy that refuses it. */
  readonly code: string
}

/** One difference between two policies, in one category, about one subject. */
export interface PolicyChange {
  readonly category: DiffCategory
  /** What changed: a tool, a program, a path scope entry, a URL argument, a budget. */
  readonly subject: string
  readonly direction: DiffDirection
  /** One line saying what changed. */
  readonly detail: string
  /** The probes that NEW decides otherwise than OLD; empty for changes read from the data. */
  readonly probes: readonly FlippedProbe[]
}

type Decision = { readonly allowed: true } | { readonly allowed: false; readonly code: string }

function fromIssues(issues: readonly PlanIssue[]): Decision {
  const first = issues[0]
  return first === undefined ? { allowed: true } : { allowed: false, code: first.code }
}

function decideUrl(compiler: PlanCompiler, probe: Extract<Probe, { kind: 'url' }>): Decision {
  const spec = compiler.policy.tools.get(probe.tool)?.args[probe.argument]
  if (spec === undefined) return { allowed: false, code: 'unknown_argument' }
  const value = spec.type === 'array' ? [probe.url] : probe.url
  const issues = compiler.checkArguments(probe.tool, { [probe.argument]: value })
  // Other required arguments are missing from the probe: only its own argument counts.
  return fromIssues(issues.filter((issue) => issue.path[0] === probe.argument))
}

/** How one policy decides one probe, lexically (nothing is looked up on disk). */
function decide(compiler: PlanCompiler, probe: Probe): Decision {
  switch (probe.kind) {
    case 'path': {
      const result = compiler.checkPath(probe.path, probe.access)
      return result.allowed ? { allowed: true } : { allowed: false, code: result.issue.code }
    }
    case 'command': {
      const result = compiler.checkCommand(probe.command)
      return result.allowed ? { allowed: true } : { allowed: false, code: result.issue.code }
    }
    case 'url':
      return decideUrl(compiler, probe)
    case 'call':
      return fromIssues(compiler.checkArguments(probe.tool, probe.args))
  }
}

function probeChanges(before: PlanCompiler, after: PlanCompiler): PolicyChange[] {
  const groups = new Map<
    string,
    { category: DiffCategory; subject: string; direction: DiffDirection; probes: FlippedProbe[] }
  >()
  for (const probe of generateProbes(before, after)) {
    const old = decide(before, probe)
    const now = decide(after, probe)
    if (old.allowed === now.allowed) continue
    const direction: DiffDirection = now.allowed ? 'looser' : 'tighter'
    const refusal = (now.allowed ? old : now) as Extract<Decision, { allowed: false }>
    const category = probeCategory(probe)
    const key = `${category}\u0000${probe.subject}\u0000${direction}`
    const group = groups.get(key) ?? { category, subject: probe.subject, direction, probes: [] }
    group.probes.push({ probe: describeProbe(probe), code: refusal.code })
    groups.set(key, group)
  }
  return [...groups.values()].map((group) => ({
    ...group,
    detail:
      group.direction === 'looser'
        ? `NEW allows ${group.probes.length} probe(s) OLD refused`
        : `NEW refuses ${group.probes.length} probe(s) OLD allowed`,
  }))
}

function dataChange(
  category: DiffCategory,
  subject: string,
  direction: DiffDirection,
  detail: string,
): PolicyChange {
  return { category, subject, direction, detail, probes: [] }
}

function toolChanges(before: Policy, after: Policy): PolicyChange[] {
  const changes: PolicyChange[] = []
  const names = new Set([...Object.keys(before.tools), ...Object.keys(after.tools)])
  for (const name of names) {
    const old = before.tools[name]
    const now = after.tools[name]
    if (old === undefined || now === undefined) {
      const added = old === undefined
      changes.push(
        dataChange(
          'tool',
          name,
          added ? 'looser' : 'tighter',
          `tool ${added ? 'added' : 'removed'}`,
        ),
      )
      continue
    }
    changes.push(...argumentChanges(name, old, now))
    const trust = (tool: ToolPolicy, policy: Policy) =>
      tool.output?.trust ?? policy.trust.defaultOutput
    const [oldTrust, newTrust] = [trust(old, before), trust(now, after)]
    if (oldTrust !== newTrust)
      changes.push(
        dataChange(
          'tool',
          name,
          newTrust === 'trusted' ? 'looser' : 'tighter',
          `output ${oldTrust} -> ${newTrust}`,
        ),
      )
  }
  return changes
}

function argumentChanges(tool: string, old: ToolPolicy, now: ToolPolicy): PolicyChange[] {
  const changes: PolicyChange[] = []
  for (const argument of new Set([...Object.keys(old.args), ...Object.keys(now.args)])) {
    const before = old.args[argument]
    const after = now.args[argument]
    const named = JSON.stringify(argument)
    if (before === undefined || after === undefined) {
      const added = before === undefined
      changes.push(
        dataChange(
          'tool',
          tool,
          added ? 'looser' : 'tighter',
          `argument ${named} ${added ? 'accepted' : 'no longer accepted'}`,
        ),
      )
      continue
    }
    if (before.type === 'path' && after.type === 'path' && before.access !== after.access)
      changes.push(
        dataChange(
          'tool',
          tool,
          after.access === 'write' ? 'looser' : 'tighter',
          `argument ${named} access ${before.access} -> ${after.access}`,
        ),
      )
    if ((before.acceptsUntrusted ?? false) !== (after.acceptsUntrusted ?? false))
      changes.push(
        dataChange(
          'tool',
          tool,
          after.acceptsUntrusted === true ? 'looser' : 'tighter',
          `argument ${named} acceptsUntrusted ${String(after.acceptsUntrusted === true)}`,
        ),
      )
  }
  return changes
}

const RULE_SWITCHES = ['allowExec', 'skipPathCheck', 'test'] as const
const RULE_LISTS = ['allowFlags', 'modules', 'scripts', 'packages'] as const

/** Per-program rule settings that lift a check: a switch turned on, an entry added to a list. */
function ruleChanges(before: Policy, after: Policy): PolicyChange[] {
  const changes: PolicyChange[] = []
  const programs = new Set([
    ...Object.keys(before.commands.rules ?? {}),
    ...Object.keys(after.commands.rules ?? {}),
  ])
  for (const program of programs) {
    const old: ProgramRule = before.commands.rules?.[program] ?? {}
    const now: ProgramRule = after.commands.rules?.[program] ?? {}
    for (const key of RULE_SWITCHES)
      if ((old[key] ?? false) !== (now[key] ?? false))
        changes.push(
          dataChange(
            'program',
            program,
            now[key] === true ? 'looser' : 'tighter',
            `${key} ${String(now[key] === true)}`,
          ),
        )
    for (const key of RULE_LISTS) {
      const oldList = new Set(old[key] ?? [])
      const newList = new Set(now[key] ?? [])
      for (const entry of newList)
        if (!oldList.has(entry))
          changes.push(dataChange('program', program, 'looser', `${key} + ${entry}`))
      for (const entry of oldList)
        if (!newList.has(entry))
          changes.push(dataChange('program', program, 'tighter', `${key} - ${entry}`))
    }
  }
  return changes
}

/** A limit as a number; no limit at all is infinite. */
function limitOf(value: unknown): number {
  return typeof value === 'number' ? value : Number.POSITIVE_INFINITY
}

function limitChange(subject: string, old: unknown, now: unknown): PolicyChange[] {
  const before = limitOf(old)
  const after = limitOf(now)
  if (before === after) return []
  const text = (value: number) => (Number.isFinite(value) ? String(value) : 'none')
  return [
    dataChange(
      'budget',
      subject,
      after > before ? 'looser' : 'tighter',
      `${text(before)} -> ${text(after)}`,
    ),
  ]
}

function budgetChanges(before: Policy, after: Policy): PolicyChange[] {
  const changes: PolicyChange[] = []
  const keys = new Set([...Object.keys(before.budgets), ...Object.keys(after.budgets)])
  for (const key of keys) {
    if (key === 'shared') continue
    const old = (before.budgets as Record<string, unknown>)[key]
    const now = (after.budgets as Record<string, unknown>)[key]
    changes.push(...limitChange(`budgets.${key}`, old, now))
  }
  const shared = new Set([
    ...Object.keys(before.budgets.shared ?? {}),
    ...Object.keys(after.budgets.shared ?? {}),
  ])
  for (const name of shared)
    changes.push(
      ...limitChange(
        `budgets.shared.${name}.maxCalls`,
        before.budgets.shared?.[name]?.maxCalls,
        after.budgets.shared?.[name]?.maxCalls,
      ),
    )
  for (const name of Object.keys(after.tools))
    if (before.tools[name] !== undefined)
      changes.push(
        ...limitChange(
          `tools.${name}.maxCalls`,
          before.tools[name]?.maxCalls,
          after.tools[name]?.maxCalls,
        ),
      )
  changes.push(
    ...limitChange('commands.maxLength', before.commands.maxLength, after.commands.maxLength),
  )
  return changes
}

/** Requirements that, turned off, let a run go with less: a signed plan, an audit log. */
function settingChanges(before: Policy, after: Policy): PolicyChange[] {
  const switches: [string, boolean, boolean][] = [
    [
      'approval.requireSignature',
      before.approval.requireSignature,
      after.approval.requireSignature,
    ],
    ['audit.required', before.audit.required, after.audit.required],
  ]
  const changes = switches
    .filter(([, old, now]) => old !== now)
    .map(([subject, , now]) =>
      dataChange(
        'setting',
        subject,
        now ? 'tighter' : 'looser',
        `${String(!now)} -> ${String(now)}`,
      ),
    )
  const oldEnv = new Set(before.sandbox?.env ?? [])
  const newEnv = new Set(after.sandbox?.env ?? [])
  for (const name of newEnv)
    if (!oldEnv.has(name))
      changes.push(dataChange('setting', 'sandbox.env', 'looser', `${name} passed to commands`))
  for (const name of oldEnv)
    if (!newEnv.has(name))
      changes.push(dataChange('setting', 'sandbox.env', 'tighter', `${name} no longer passed`))
  return changes
}

function sandboxLimitChanges(before: Policy, after: Policy): PolicyChange[] {
  const read = (policy: Policy, key: string) =>
    (policy.sandbox?.limits as Record<string, unknown> | undefined)?.[key]
  const keys = new Set([
    ...Object.keys(before.sandbox?.limits ?? {}),
    ...Object.keys(after.sandbox?.limits ?? {}),
  ])
  return [...keys].flatMap((key) =>
    limitChange(`sandbox.limits.${key}`, read(before, key), read(after, key)),
  )
}

function networkChanges(before: Policy, after: Policy): PolicyChange[] {
  const old = new Set(before.sandbox?.network.allow ?? [])
  const now = new Set(after.sandbox?.network.allow ?? [])
  return [
    ...[...now]
      .filter((host) => !old.has(host))
      .map((host) => dataChange('host', 'sandbox.network.allow', 'looser', `${host} added`)),
    ...[...old]
      .filter((host) => !now.has(host))
      .map((host) => dataChange('host', 'sandbox.network.allow', 'tighter', `${host} removed`)),
  ]
}

/**
 * What NEW allows that OLD refused (`looser`) and the reverse (`tighter`), by tool, program, path
 * scope, host and budget: from the policies' data (tools, arguments, limits, sandbox hosts) and
 * from probes generated around every rule and example of both, each decided by both compilers.
 *
 * @example
 * ```ts
 * const changes = diffPolicies(await createPlanCompiler(old), await createPlanCompiler(next))
 * const looser = changes.some((change) => change.direction === 'looser')
 * ```
 */
export function diffPolicies(before: PlanCompiler, after: PlanCompiler): PolicyChange[] {
  const old = before.policy.policy
  const now = after.policy.policy
  return [
    ...toolChanges(old, now),
    ...ruleChanges(old, now),
    ...probeChanges(before, after),
    ...networkChanges(old, now),
    ...budgetChanges(old, now),
    ...sandboxLimitChanges(old, now),
    ...settingChanges(old, now),
  ]
}
