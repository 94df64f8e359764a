import type { PlanCompiler, PlanIssue } from '@plan/core'
import type { DiffDirection, FlippedProbe, PolicyChange } from './policy-change.js'
import { policyDataChanges } from './policy-data-changes.js'
import {
  type DiffCategory,
  describeProbe,
  generateProbes,
  type Probe,
  probeCategory,
} from './policy-probes.js'

export type { DiffDirection, FlippedProbe, PolicyChange } from './policy-change.js'

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
  const data = policyDataChanges(old, now)
  // Tool and program changes from the data first, then what the probes found, then the rest.
  const first = data.filter((change) => change.category === 'tool' || change.category === 'program')
  const rest = data.filter((change) => change.category !== 'tool' && change.category !== 'program')
  return [...first, ...probeChanges(before, after), ...rest]
}
