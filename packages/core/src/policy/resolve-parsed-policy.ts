import {
  createIssue,
  type PlanIssue,
  PolicyError,
  posix,
  withBuildFileAlternatives,
} from '@plan/shell/common'
import type { Policy, ToolPolicy } from '../schema/policy-schema.js'
import type { ResolvedPolicy } from '../types/resolved-policy.js'
import { compilePolicyPatterns } from './policy-pattern.js'

function normalise(root: string, baseDir: string): string {
  const absolute = posix.resolve(baseDir, root)
  return absolute.length > 1 && absolute.endsWith('/') ? absolute.slice(0, -1) : absolute
}

/**
 * Checks what the schema cannot (NUL or backslash in workspace paths, paths in `commands.allow`,
 * patterns the linear-time engine cannot compile) and resolves a parsed policy's roots against
 * `baseDir`. Throws {@link PolicyError} listing every problem.
 */
export function resolveParsedPolicy(policy: Policy, baseDir: string): ResolvedPolicy {
  const issues: PlanIssue[] = []
  const invalid = (message: string, path: (string | number)[], hint?: string) => {
    issues.push(createIssue('invalid_policy', message, path, hint))
  }
  // A deny or read-only entry no real path can match would protect nothing: refused as a root is.
  for (const list of ['roots', 'readOnly', 'deny'] as const)
    policy.workspace[list].forEach((path, index) => {
      if (path.includes('\0') || path.includes('\\'))
        invalid(
          'A workspace path may not contain NUL or backslash.',
          ['workspace', list, index],
          'Separate folders with "/".',
        )
    })
  for (const name of policy.commands.allow) {
    if (name.includes('/'))
      invalid(
        `commands.allow lists ${JSON.stringify(name)}, a path; programs are allowed by bare name.`,
        ['commands', 'allow'],
        'List the program name only, e.g. "git".',
      )
  }
  compilePolicyPatterns(policy, [], (path, message) => {
    invalid(
      message,
      path,
      'Write the pattern in RE2 syntax that is also a JavaScript regular expression.',
    )
  })
  if (issues.length > 0) throw new PolicyError(issues)
  const roots = policy.workspace.roots.map((root) => normalise(root, baseDir))
  const extra = (entries: readonly string[]) =>
    roots.flatMap((root) =>
      entries.map((entry) =>
        normalise(posix.isAbsolute(entry) ? entry : posix.join(root, entry), baseDir),
      ),
    )
  const tools = new Map<string, ToolPolicy>(Object.entries(policy.tools))
  return Object.freeze({
    policy,
    scope: Object.freeze({
      roots,
      // A read-only build file protects what its tool reads in its place (see @plan/shell).
      readOnly: withBuildFileAlternatives([...new Set(extra(policy.workspace.readOnly))], roots),
      deny: [...new Set(extra(policy.workspace.deny))],
    }),
    tools,
  })
}

/** True for a policy that {@link resolveParsedPolicy} already resolved. */
export function isResolvedPolicy(value: unknown): value is ResolvedPolicy {
  return (
    typeof value === 'object' &&
    value !== null &&
    'scope' in value &&
    'tools' in value &&
    value.tools instanceof Map
  )
}
