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

type Invalid = (message: string, path: (string | number)[], hint?: string) => void

/** A `readOnly` or `deny` entry as a path: `dir/**` is the folder `dir`, which covers all below. */
function entryPath(entry: string): string {
  return entry === '**' ? '.' : entry.endsWith('/**') ? entry.slice(0, -3) : entry
}

/**
 * Refuses workspace entries that cannot mean what they seem (NUL, backslash, a leading `~`, a
 * wildcard other than a final `/**`): a deny or read-only entry matching nothing protects nothing.
 */
function checkWorkspacePaths(policy: Policy, invalid: Invalid): void {
  for (const list of ['roots', 'readOnly', 'deny'] as const)
    policy.workspace[list].forEach((entry, index) => {
      const at = ['workspace', list, index]
      if (entry.includes('\0') || entry.includes('\\'))
        invalid(
          'A workspace path may not contain NUL or backslash.',
          at,
          'Separate folders with "/".',
        )
      else if (/^~[\w.-]*(\/|$)/.test(entry))
        invalid(
          `workspace.${list} lists ${JSON.stringify(entry)}: a leading ~ is not expanded here.`,
          at,
          'Write the path absolute, or relative to the workspace root.',
        )
      else if (/[*?]/.test(list === 'roots' ? entry : entryPath(entry)))
        invalid(
          `workspace.${list} lists ${JSON.stringify(entry)}: paths, not patterns, are matched here.`,
          at,
          'List each file or folder (a folder covers everything below it); "dir/**" is the folder dir.',
        )
    })
}

/**
 * Checks what the schema cannot (NUL or backslash in workspace paths, paths in `commands.allow`,
 * patterns the linear-time engine cannot compile) and resolves a parsed policy's roots against
 * `baseDir`. Throws {@link PolicyError} listing every problem.
 */
export function resolveParsedPolicy(policy: Policy, baseDir: string): ResolvedPolicy {
  const issues: PlanIssue[] = []
  const invalid: Invalid = (message, path, hint) => {
    issues.push(createIssue('invalid_policy', message, path, hint))
  }
  checkWorkspacePaths(policy, invalid)
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
      entries
        .map(entryPath)
        .map((path) => normalise(posix.isAbsolute(path) ? path : posix.join(root, path), baseDir)),
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
