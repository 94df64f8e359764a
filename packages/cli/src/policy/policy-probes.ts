import { posix } from 'node:path'
import type { ArgSpec, PlanCompiler, Policy, ResolvedPolicy } from '@plan/core'

/** The dimension of a policy a probe or a change belongs to. */
export type DiffCategory = 'tool' | 'program' | 'path' | 'host' | 'budget' | 'setting'

/** One input decided under both policies: a path, a command, a URL argument or a whole call. */
export type Probe =
  | {
      readonly kind: 'path'
      readonly subject: string
      readonly path: string
      readonly access: 'read' | 'write'
    }
  | { readonly kind: 'command'; readonly subject: string; readonly command: string }
  | {
      readonly kind: 'url'
      readonly subject: string
      readonly tool: string
      readonly argument: string
      readonly url: string
    }
  | {
      readonly kind: 'call'
      readonly subject: string
      readonly tool: string
      readonly args: Readonly<Record<string, unknown>>
    }

/** The category a probe's changes are reported under. */
export function probeCategory(probe: Probe): DiffCategory {
  if (probe.kind === 'path') return 'path'
  if (probe.kind === 'command') return 'program'
  if (probe.kind === 'url') return 'host'
  return 'tool'
}

/** A probe as one line of text. */
export function describeProbe(probe: Probe): string {
  switch (probe.kind) {
    case 'path':
      return `${probe.access} ${probe.path}`
    case 'command':
      return probe.command
    case 'url':
      return `${probe.tool}.${probe.argument} = ${probe.url}`
    case 'call':
      return `${probe.tool} ${JSON.stringify(probe.args)}`
  }
}

function pathProbes(policy: ResolvedPolicy): Probe[] {
  const { roots, readOnly, deny } = policy.scope
  const around = (base: string): string[] => [
    base,
    posix.join(base, 'probe.txt'),
    posix.join(base, 'sub', 'probe.txt'),
  ]
  const bases = [...roots, ...readOnly, ...deny]
  const outside = roots.flatMap((root) => [
    posix.join(posix.dirname(root), 'probe.txt'),
    `${root}-sibling/probe.txt`,
  ])
  const probes: Probe[] = []
  for (const base of bases)
    for (const path of around(base))
      for (const access of ['read', 'write'] as const)
        probes.push({ kind: 'path', subject: base, path, access })
  for (const path of [...outside, '/etc/passwd', '/tmp/probe.txt'])
    for (const access of ['read', 'write'] as const)
      probes.push({ kind: 'path', subject: posix.dirname(path), path, access })
  return probes
}

function programProbes(policy: Policy): Probe[] {
  const programs = new Set([...policy.commands.allow, ...Object.keys(policy.commands.rules ?? {})])
  const probes: Probe[] = []
  for (const program of programs) {
    const rule = policy.commands.rules?.[program]
    const commands = [
      program,
      `${program} --version`,
      // A subcommand no rule names: allowed only where a program's subcommands are not limited.
      `${program} unlisted-subcommand`,
      ...(rule?.subcommands ?? []).map((subcommand) => `${program} ${subcommand}`),
      ...(rule?.denyFlags ?? []).map((flag) => `${program} ${flag}`),
      ...(rule?.examples?.allow ?? []),
      ...(rule?.examples?.deny ?? []),
    ]
    for (const command of commands) probes.push({ kind: 'command', subject: program, command })
  }
  return probes
}

/** URL arguments, with the hosts they name, at any depth of arrays. */
function urlSpec(spec: ArgSpec): { hosts: readonly string[] } | undefined {
  if (spec.type === 'array') return urlSpec(spec.items)
  if (spec.type === 'string' && spec.format === 'url') return { hosts: spec.hosts ?? [] }
  return undefined
}

function hostsToUrls(hosts: readonly string[]): string[] {
  const names = hosts.flatMap((host) =>
    host.startsWith('*.') ? [`probe.${host.slice(2)}`, host.slice(2)] : [host],
  )
  return ['https', 'http'].flatMap((scheme) => names.map((name) => `${scheme}://${name}/`))
}

function hostProbes(policies: readonly Policy[]): Probe[] {
  const hostsOf = new Map<string, Set<string>>()
  for (const policy of policies)
    for (const [tool, toolPolicy] of Object.entries(policy.tools))
      for (const [argument, spec] of Object.entries(toolPolicy.args)) {
        const url = urlSpec(spec)
        if (url === undefined) continue
        const key = `${tool}\u0000${argument}`
        const hosts = hostsOf.get(key) ?? new Set(['unlisted.example.invalid'])
        for (const host of url.hosts) hosts.add(host)
        hostsOf.set(key, hosts)
      }
  const probes: Probe[] = []
  for (const [key, hosts] of hostsOf) {
    const [tool, argument] = key.split('\u0000') as [string, string]
    for (const url of hostsToUrls([...hosts]))
      probes.push({ kind: 'url', subject: `${tool}.${argument}`, tool, argument, url })
  }
  return probes
}

function exampleProbes(policy: Policy): Probe[] {
  return Object.entries(policy.tools).flatMap(([tool, toolPolicy]) =>
    [...(toolPolicy.examples?.allow ?? []), ...(toolPolicy.examples?.deny ?? [])].map(
      (args): Probe => ({ kind: 'call', subject: tool, tool, args }),
    ),
  )
}

/**
 * The probes of a diff, generated around every rule of either policy: each root, read-only and
 * denied path (itself, a file in it, a file deeper, and just outside each root), each program
 * (alone, with each subcommand and denied flag), each URL argument's hosts (and one host no
 * policy lists), and the examples both policies carry.
 */
export function generateProbes(
  before: Pick<PlanCompiler, 'policy'>,
  after: Pick<PlanCompiler, 'policy'>,
): Probe[] {
  const policies = [before.policy, after.policy]
  const seen = new Set<string>()
  const probes = [
    ...policies.flatMap(pathProbes),
    ...policies.flatMap((policy) => programProbes(policy.policy)),
    ...hostProbes(policies.map((policy) => policy.policy)),
    ...policies.flatMap((policy) => exampleProbes(policy.policy)),
  ]
  return probes.filter((probe) => {
    const key = `${probe.kind}\u0000${describeProbe(probe)}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
