import type { Policy, ProgramRule, ToolPolicy } from '@plan/core'
import type { DiffDirection, PolicyChange } from './policy-change.js'
import type { DiffCategory } from './policy-probes.js'

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
 * The changes read from the two policies' data rather than from probes: tools and arguments,
 * program rule switches, limits, sandbox hosts and environment, signature and audit settings.
 */
export function policyDataChanges(before: Policy, after: Policy): PolicyChange[] {
  return [
    ...toolChanges(before, after),
    ...ruleChanges(before, after),
    ...networkChanges(before, after),
    ...budgetChanges(before, after),
    ...sandboxLimitChanges(before, after),
    ...settingChanges(before, after),
  ]
}
