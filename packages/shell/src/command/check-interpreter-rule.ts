import { isWithin, resolvePath } from '../checks/path-scope.js'
import type { ProgramRule } from '../schema/command-policy.js'
import type { PathScope } from '../types/path-scope.js'
import type { PlanIssue } from '../types/plan-issue.js'
import { stringAt } from '../util/item-at.js'
import { quoted } from './command-hints.js'
import { packageOfSpec } from './package-runner.js'
import { NODE_RULE_SAFE, NODE_RULE_SAFE_WITH_VALUE, RUNNER_SAFE, RUNNERS } from './programs/node.js'
import { PYTHON_SAFE } from './programs/python.js'

/**
 * For an npx-style runner: the registry package it is asked to run (`npx prettier@3 --check`
 * runs `prettier`), or undefined for another program, or when it names none or other code.
 */
export function runnerPackage(name: string, args: readonly string[]): string | undefined {
  if (!RUNNERS.has(name)) return undefined
  let index = 0
  while (RUNNER_SAFE.has(args[index] ?? '')) index += 1
  const target = args[index]
  if (target === undefined || target.startsWith('-')) return undefined
  return packageOfSpec(target)
}

/** True when the rule has any of the fine-grained interpreter fields. */
export function hasInterpreterRule(rule: ProgramRule | undefined): rule is ProgramRule {
  return (
    rule !== undefined &&
    (rule.modules !== undefined ||
      rule.scripts !== undefined ||
      rule.test === true ||
      rule.packages !== undefined)
  )
}

/**
 * Why an interpreter rule refuses a command, and what would change that: the rule field and
 * value that would allow it (`modules: ["http.server"]`), or `inline` when the command runs code
 * that only `allowExec` lets through.
 */
export interface InterpreterRefusal {
  readonly message: string
  readonly field?: 'modules' | 'scripts' | 'test' | 'packages'
  readonly value?: string
  readonly inline?: boolean
}

/**
 * Whether an interpreter or runner command does only what its rule allows: `python -m MODULE`
 * for a listed module, a listed script, `node --test`, or `npx PACKAGE` for a listed package,
 * each after options that do not load other code. Returns why not, or undefined when allowed.
 */
export function checkInterpreterRule(
  name: string,
  args: readonly string[],
  rule: ProgramRule,
  scope: PathScope,
): InterpreterRefusal | undefined {
  if (RUNNERS.has(name)) {
    let index = 0
    while (RUNNER_SAFE.has(args[index] ?? '')) index += 1
    const target = args[index] ?? ''
    const bare = packageOfSpec(target)
    if (bare !== undefined && rule.packages?.includes(bare) === true) return undefined
    return {
      message:
        bare === undefined
          ? `${name} runs ${quoted(target)}, which names no registry package by name and version.`
          : `${name} runs ${quoted(target)}, which is not in the rule's packages (${(rule.packages ?? []).join(', ') || 'none'}).`,
      ...(bare === undefined ? {} : { field: 'packages' as const, value: bare }),
    }
  }
  const python = name.startsWith('python') || name.startsWith('pypy')
  const node = name === 'node' || name === 'nodejs' || name.startsWith('node')
  let index = 0
  while (index < args.length) {
    const argument = stringAt(args, index)
    if (python && PYTHON_SAFE.has(argument)) index += 1
    else if (node && NODE_RULE_SAFE.has(argument)) index += 1
    else if (node && NODE_RULE_SAFE_WITH_VALUE.has(stringAt(argument.split('='), 0)))
      index += argument.includes('=') ? 1 : 2
    else break
  }
  const argument = args[index]
  if (argument === undefined)
    return { message: `${name} without a script reads code from stdin.`, field: 'scripts' }
  if (python && (argument === '-m' || (argument.startsWith('-m') && argument.length > 2))) {
    const module = argument === '-m' ? (args[index + 1] ?? '') : argument.slice(2)
    return rule.modules?.includes(module) === true
      ? undefined
      : {
          message: `${name} -m ${quoted(module)} is not in the rule's modules (${(rule.modules ?? []).join(', ') || 'none'}).`,
          field: 'modules',
          value: module,
        }
  }
  if (node && argument === '--test') {
    return rule.test === true
      ? undefined
      : { message: `${name} --test is not allowed by the rule.`, field: 'test' }
  }
  if (argument.startsWith('-'))
    return {
      message: `${name} ${quoted(argument)} is not an option the rule allows.`,
      inline: true,
    }
  const resolved = resolvePath(argument, scope, 'read')
  if (typeof resolved === 'string' && scriptMatches(resolved, rule.scripts ?? [], scope))
    return undefined
  return {
    message: `${name} ${quoted(argument)} is not one of the rule's scripts (${(rule.scripts ?? []).join(', ') || 'none'}).`,
    field: 'scripts',
    value: typeof resolved === 'string' ? relativeScript(resolved, scope) : undefined,
  }
}

/** Policy problems of the interpreter rules: every script glob must be read-only. */
export function interpreterRuleIssues(
  word: string,
  rule: ProgramRule,
  scope: PathScope,
): PlanIssue[] {
  const root = scope.roots[0]
  return (rule.scripts ?? []).flatMap((glob) => {
    const fixed = glob.split(/[*?[]/)[0] ?? ''
    const folder = fixed.includes('/') ? fixed.slice(0, fixed.lastIndexOf('/')) : ''
    const base = root === undefined ? undefined : resolvePath(folder === '' ? '.' : folder, scope)
    const prefix = typeof base === 'string' ? base : undefined
    const readOnly = prefix !== undefined && scope.readOnly.some((entry) => isWithin(entry, prefix))
    if (readOnly && !glob.includes('..')) return []
    return [
      {
        code: 'invalid_policy',
        message: `commands.rules.${word}.scripts: ${JSON.stringify(glob)} is not under a readOnly path; a script the agent can write is inline code by another name.`,
        path: ['commands', 'rules', word, 'scripts'],
        hint: 'Add the scripts folder to workspace.readOnly, or list only scripts under it.',
      } satisfies PlanIssue,
    ]
  })
}

// The script as a path relative to the first root when it lies under a readOnly path (the only
// place a rule may list scripts from), else undefined.
function relativeScript(resolved: string, scope: PathScope): string | undefined {
  const root = scope.roots[0]
  if (root === undefined || !isWithin(root, resolved) || resolved === root) return undefined
  if (!scope.readOnly.some((entry) => isWithin(entry, resolved))) return undefined
  const relative = resolved.slice(root === '/' ? 1 : root.length + 1)
  return /[*?[]/.test(relative) ? undefined : relative
}

function scriptMatches(resolved: string, globs: readonly string[], scope: PathScope): boolean {
  const root = scope.roots[0] ?? '/'
  return globs.some((glob) => globToRegExp(`${root === '/' ? '' : root}/${glob}`).test(resolved))
}

function globToRegExp(glob: string): RegExp {
  let source = ''
  for (let index = 0; index < glob.length; index += 1) {
    const char = glob.charAt(index)
    if (char === '*' && glob[index + 1] === '*') {
      source += '.*'
      index += 1
    } else if (char === '*') source += '[^/]*'
    else if (char === '?') source += '[^/]'
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${source}$`)
}
