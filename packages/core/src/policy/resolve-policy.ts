import { readFile } from 'node:fs/promises'
import { dirname, posix, resolve } from 'node:path'
import type { z } from 'zod'
import type { PathScope } from '../checks/path-scope.js'
import { unreadableIssue } from '../compile/unreadable-issue.js'
import { PolicyError } from '../errors/policy-error.js'
import { copyJson } from '../guard/json-copy.js'
import type { PlanIssue } from '../issues/plan-issue.js'
import type { JsonValue } from '../plan/json-value.js'
import { compilePolicyPatterns } from './policy-pattern.js'
import { type Policy, type PolicyInput, policySchema, type ToolPolicy } from './policy-schema.js'

/** A validated policy with absolute roots and lookup maps; what the compiler works from. */
export interface ResolvedPolicy {
  readonly policy: Policy
  readonly scope: PathScope
  readonly tools: ReadonlyMap<string, ToolPolicy>
}

/** Options for {@link resolvePolicy}. */
export interface ResolvePolicyOptions {
  /** Folder that relative workspace roots resolve against. Defaults to the current folder. */
  readonly baseDir?: string
}

function zodIssues(error: z.ZodError): PlanIssue[] {
  return error.issues.map((issue) => ({
    code: 'invalid_policy',
    message: issue.message,
    path: issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment)),
    hint: 'Fix the policy; see the policy JSON Schema (`plan schema policy`).',
  }))
}

function normalise(root: string, baseDir: string): string {
  const absolute = resolve(baseDir, root)
  return absolute.length > 1 && absolute.endsWith('/') ? absolute.slice(0, -1) : absolute
}

/**
 * Validates a policy object and resolves its roots. Throws {@link PolicyError} listing every
 * problem when the policy is invalid.
 */
export function resolvePolicy(
  input: PolicyInput | ResolvedPolicy | unknown,
  options: ResolvePolicyOptions = {},
): ResolvedPolicy {
  let parsed: ReturnType<typeof policySchema.safeParse>
  try {
    if (isResolvedPolicy(input)) return input
    // Read once into plain JSON of bounded size: no getter or Proxy runs twice, nothing huge reaches zod.
    const copied = copyJson(input)
    if (!copied.ok) throw new TypeError(`it is not plain JSON (${copied.reason})`)
    if (countNodes(copied.value, MAX_POLICY_NODES) > MAX_POLICY_NODES)
      throw new TypeError(`it has more than ${MAX_POLICY_NODES} values`)
    parsed = policySchema.safeParse(copied.value)
  } catch (error) {
    throw new PolicyError([unreadableIssue('invalid_policy', 'policy', error)], { cause: error })
  }
  if (!parsed.success) throw new PolicyError(zodIssues(parsed.error))
  const policy = parsed.data
  const baseDir = options.baseDir ?? process.cwd()
  const issues: PlanIssue[] = []
  const checkEntry = (value: string, path: (string | number)[]) => {
    if (value.includes('\0') || value.includes('\\')) {
      issues.push({
        code: 'invalid_policy',
        message: 'A workspace path may not contain NUL or backslash.',
        path,
      })
    }
  }
  policy.workspace.roots.forEach((root, index) => {
    checkEntry(root, ['workspace', 'roots', index])
  })
  for (const name of policy.commands.allow) {
    if (name.includes('/')) {
      issues.push({
        code: 'invalid_policy',
        message: `commands.allow lists ${JSON.stringify(name)}, a path; programs are allowed by bare name.`,
        path: ['commands', 'allow'],
        hint: 'List the program name only, e.g. "git".',
      })
    }
  }
  compilePolicyPatterns(policy, [], (path, message) => {
    issues.push({
      code: 'invalid_policy',
      message,
      path,
      hint: 'Write the pattern in RE2 syntax that is also a JavaScript regular expression.',
    })
  })
  if (issues.length > 0) throw new PolicyError(issues)
  const roots = policy.workspace.roots.map((root) => normalise(root, baseDir))
  const first = roots[0] as string
  const inside = (entry: string) =>
    normalise(posix.isAbsolute(entry) ? entry : posix.join(first, entry), baseDir)
  const extra = (entries: readonly string[]) =>
    roots.flatMap((root) =>
      entries.map((entry) =>
        posix.isAbsolute(entry) ? inside(entry) : normalise(posix.join(root, entry), baseDir),
      ),
    )
  const tools = new Map<string, ToolPolicy>(Object.entries(policy.tools))
  return Object.freeze({
    policy,
    scope: Object.freeze({
      roots,
      readOnly: [...new Set(extra(policy.workspace.readOnly))],
      deny: [...new Set(extra(policy.workspace.deny))],
    }),
    tools,
  })
}

/** Most values (objects, arrays, scalars) a policy may hold. */
const MAX_POLICY_NODES = 200_000

/** The number of values in a JSON value, counting stops past `limit`. */
function countNodes(value: JsonValue, limit: number): number {
  let count = 0
  const pending: JsonValue[] = [value]
  while (pending.length > 0 && count <= limit) {
    const next = pending.pop() as JsonValue
    count += 1
    if (typeof next === 'object' && next !== null)
      for (const child of Object.values(next)) pending.push(child)
  }
  return count
}

function isResolvedPolicy(value: unknown): value is ResolvedPolicy {
  return (
    typeof value === 'object' &&
    value !== null &&
    'scope' in value &&
    (value as { tools?: unknown }).tools instanceof Map
  )
}

/**
 * Reads a policy JSON file; relative workspace roots resolve against the file's folder.
 * Throws {@link PolicyError} when the file cannot be read, is not JSON, or is not a valid policy.
 */
export async function loadPolicy(file: string): Promise<ResolvedPolicy> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    throw new PolicyError(
      [
        {
          code: 'invalid_policy',
          message: `Cannot read the policy file ${file}: ${(error as Error).message}`,
          path: [],
        },
      ],
      { cause: error },
    )
  }
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (error) {
    throw new PolicyError(
      [
        {
          code: 'invalid_policy',
          message: `The policy file ${file} is not valid JSON: ${(error as Error).message}`,
          path: [],
        },
      ],
      { cause: error },
    )
  }
  return resolvePolicy(data, { baseDir: dirname(resolve(file)) })
}
