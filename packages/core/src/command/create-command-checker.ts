import { PolicyError } from '../errors/policy-error.js'
import type { CommandPolicy, ProgramRule } from '../schema/command-policy.js'
import type { CommandCheckResult } from '../types/command-check-result.js'
import type { PathScope } from '../types/path-scope.js'
import type { PlanIssue } from '../types/plan-issue.js'
import { hasUnsafeCommandCharacter } from '../util/unsafe-characters.js'
import { analyzeSyntaxTree } from './analyze-syntax-tree.js'
import { isCatalogProgram } from './catalog-programs.js'
import { checkBuiltinRules } from './check-builtin-rules.js'
import { checkCommandPaths } from './check-command-paths.js'
import {
  checkInterpreterRule,
  hasInterpreterRule,
  interpreterRuleIssues,
} from './check-interpreter-rule.js'
import { checkUnmodelledProgram } from './check-unmodelled-program.js'
import { COMMAND_HINTS } from './command-hints.js'
import { commandIssue } from './command-issue.js'
import { findSubcommand } from './global-options.js'
import { lexCommand } from './lex-command.js'
import { loadBashLanguage } from './load-bash-language.js'
import { programKind, programName } from './program-catalog.js'
import { usesFlag } from './uses-flag.js'

/** What a command checker needs: the `commands` section of a policy and the workspace scope. */
export interface CommandCheckerOptions {
  readonly policy: CommandPolicy
  readonly scope: PathScope
}

/** Checks shell commands against a policy. */
export interface CommandChecker {
  /**
   * Checks one command. Allowed only when it is one simple command of literal words whose
   * program the policy allows; the result's `argv` can then run without a shell.
   */
  check(command: unknown): CommandCheckResult
  /**
   * One `command_unmodelled_program` issue per allowed program the checker has no built-in
   * model of: its flags and operands are checked only generically, and guarded by the sandbox.
   */
  readonly warnings: readonly PlanIssue[]
}

const CACHE_SIZE = 512

/**
 * Creates a command checker: loads the tree-sitter Bash grammar (once per process) and gives
 * the checker its own parser. Every command is parsed by the grammar and by an independent strict
 * tokenizer; it is allowed only when both see the same single simple command of literal words,
 * the program is allowed, and no built-in or policy rule refuses its arguments.
 *
 * @example
 * ```ts
 * const checker = await createCommandChecker({
 *   policy: { allow: ['git', 'npm'], maxLength: 8192 },
 *   scope: { roots: ['/srv/repo'], readOnly: [], deny: [] },
 * })
 * checker.check('git commit -m "fix: a | b"') // { allowed: true, argv: ['git', 'commit', '-m', 'fix: a | b'] }
 * checker.check('git status && rm -rf /')     // { allowed: false, issue: { code: 'command_list', … }, … }
 * ```
 */
export async function createCommandChecker(
  options: CommandCheckerOptions,
): Promise<CommandChecker> {
  const { language, Parser } = await loadBashLanguage()
  const parser = new Parser()
  parser.setLanguage(language)
  const { policy, scope } = options
  const allow = new Set(policy.allow)
  const rules = new Map<string, ProgramRule>(Object.entries(policy.rules ?? {}))
  const policyIssues = [...rules].flatMap(([word, rule]) =>
    interpreterRuleIssues(word, rule, scope),
  )
  if (policyIssues.length > 0) throw new PolicyError(policyIssues)
  const cache = new Map<string, CommandCheckResult>()
  const allowHint =
    allow.size > 0
      ? `Use one of: ${[...allow].sort().join(', ')}.`
      : 'The policy allows no programs; do not run commands.'

  const checkProgram = (argv: readonly string[], withPaths: boolean): PlanIssue[] => {
    const issues: PlanIssue[] = []
    const word = argv[0] ?? ''
    const name = programName(word)
    const rule = rules.get(word)
    const allowExec = rule?.allowExec === true
    const args = argv.slice(1)
    const shown = JSON.stringify(word)
    switch (programKind(name)) {
      case 'dangerous':
        issues.push(
          commandIssue(
            'command_dangerous_program',
            `${shown} evaluates code, changes identity or escapes confinement; it is never allowed.`,
            'Run the program you need directly, as the current user, in its own step.',
          ),
        )
        break
      case 'wrapper':
        if (!allowExec && hasInterpreterRule(rule))
          issues.push(...interpreterRuleIssue(name, args, rule, scope))
        else if (!allowExec) {
          issues.push(
            commandIssue(
              'command_wrapper',
              `${shown} runs another program, which would escape the command checks.`,
              `Run the inner program directly (without ${name}); set limits in the tool, not the command.`,
            ),
          )
        }
        break
      case 'interpreter':
        if (!allowExec && hasInterpreterRule(rule))
          issues.push(...interpreterRuleIssue(name, args, rule, scope))
        else if (!allowExec) issues.push(interpreterIssue(name, shown, args))
        break
      case 'interactive':
        if (!allowExec) issues.push(interpreterIssue(name, shown, args))
        break
      default:
        break
    }
    for (const finding of checkBuiltinRules(name, args)) {
      if (finding.kind === 'exec' && allowExec) continue
      if (
        finding.kind === 'write' &&
        finding.flag !== undefined &&
        rule?.allowFlags?.includes(finding.flag)
      )
        continue
      issues.push(commandIssue(finding.code, finding.message, finding.hint))
    }
    if (word.includes('/')) {
      issues.push(
        commandIssue(
          'command_not_allowed',
          `The program is given as a path (${shown}); programs run by bare name from the allow list.`,
          `Use the bare name (${JSON.stringify(name)}) if it is allowed.`,
        ),
      )
    } else if (!allow.has(word)) {
      issues.push(
        commandIssue(
          'command_not_allowed',
          `The program ${shown} is not in commands.allow.`,
          allowHint,
        ),
      )
    }
    if (rule !== undefined) issues.push(...checkRule(word, args, rule))
    if (!allowExec && !isCatalogProgram(name)) issues.push(...checkUnmodelledProgram(word, args))
    if (withPaths && rule?.skipPathCheck !== true)
      issues.push(...checkCommandPaths(name, args, scope))
    return issues
  }

  const evaluate = (command: unknown): CommandCheckResult => {
    if (typeof command !== 'string') {
      return deny([
        commandIssue(
          'command_invalid',
          `A command must be a string, got ${describeValue(command)}.`,
          'Pass the command as one string, e.g. "git status".',
        ),
      ])
    }
    if (command.trim().length === 0) {
      return deny([
        commandIssue(
          'command_invalid',
          'The command is empty.',
          'Pass a command, e.g. "git status".',
        ),
      ])
    }
    if (command.length > policy.maxLength) {
      return deny([
        commandIssue(
          'command_invalid',
          `The command is ${command.length} characters long (at most ${policy.maxLength}).`,
          'Run a shorter command; pass long text through a file tool.',
        ),
      ])
    }
    if (hasUnsafeCommandCharacter(command)) {
      return deny([
        commandIssue(
          'command_invalid',
          'The command contains a NUL, control or invisible formatting character.',
          'Remove control characters; write the command in plain text.',
        ),
      ])
    }
    const tree = parser.parse(command)
    if (tree === null) {
      return deny([
        commandIssue(
          'command_parse_error',
          'The command could not be parsed.',
          COMMAND_HINTS.parse,
        ),
      ])
    }
    let syntax: ReturnType<typeof analyzeSyntaxTree>
    try {
      syntax = analyzeSyntaxTree(tree.rootNode, command)
    } finally {
      tree.delete()
    }
    const lexed = lexCommand(command)
    const issues: PlanIssue[] = [...syntax.issues]
    const codes = new Set(issues.map((issue) => issue.code))
    for (const issue of lexed.issues) if (!codes.has(issue.code)) issues.push(issue)
    // Name the specific constructs first; a parse error is often only their consequence.
    issues.sort(
      (left, right) =>
        Number(left.code === 'command_parse_error') - Number(right.code === 'command_parse_error'),
    )
    let argv: string[] | undefined
    if (issues.length === 0) {
      const simple = syntax.simple
      const agree =
        simple !== undefined &&
        simple.length === lexed.words.length &&
        simple.every((word, index) => {
          const other = lexed.words[index]
          return (
            other !== undefined &&
            other.start === word.start &&
            other.end === word.end &&
            other.value === word.value
          )
        })
      if (agree) argv = lexed.words.map((word) => word.value)
      else {
        issues.push(
          commandIssue(
            'command_parse_error',
            'The command is not one plain command of literal words (the grammar and the strict tokenizer read it differently).',
            COMMAND_HINTS.parse,
          ),
        )
      }
    }
    if (argv !== undefined) issues.push(...checkProgram(argv, true))
    else for (const words of syntax.commands) issues.push(...checkProgram(words, false))
    if (argv !== undefined && issues.length === 0) return { allowed: true, argv }
    return deny(unique(issues))
  }

  const warnings = Object.freeze(
    [...allow]
      .filter((word) => !isCatalogProgram(programName(word)))
      .sort()
      .map((word) =>
        Object.freeze(
          commandIssue(
            'command_unmodelled_program',
            `The allowed program ${JSON.stringify(word)} has no built-in model: its flags and operands are checked only generically (paths, shell syntax), and are otherwise guarded by the sandbox alone.`,
            `Narrow it with a rule (subcommands, denyFlags), or run it only inside the sandbox.`,
          ),
        ),
      ),
  )

  return {
    warnings,
    check(command: unknown): CommandCheckResult {
      if (typeof command !== 'string') return evaluate(command)
      const cached = cache.get(command)
      if (cached !== undefined) {
        // Refresh the entry so the least recently used one is evicted first.
        cache.delete(command)
        cache.set(command, cached)
        return cached
      }
      const result = freeze(evaluate(command))
      cache.set(command, result)
      if (cache.size > CACHE_SIZE) {
        const oldest = cache.keys().next()
        if (oldest.done !== true) cache.delete(oldest.value)
      }
      return result
    },
  }
}

function interpreterRuleIssue(
  name: string,
  args: readonly string[],
  rule: ProgramRule,
  scope: PathScope,
): PlanIssue[] {
  const why = checkInterpreterRule(name, args, rule, scope)
  return why === undefined
    ? []
    : [
        commandIssue(
          'command_inline_code',
          why,
          'Run only the modules, scripts or packages the policy rule lists for this program.',
        ),
      ]
}

function interpreterIssue(name: string, shown: string, args: readonly string[]): PlanIssue {
  const inline = args.find((argument) =>
    [
      '-c',
      '-e',
      '-E',
      '-p',
      '-r',
      '--eval',
      '--print',
      '--command',
      '--exec',
      '-x',
      '-ex',
      '-cmd',
      'eval',
      '-exec',
    ].some((flag) => usesFlag(argument, flag, 'single') || usesFlag(argument, flag)),
  )
  const what =
    inline !== undefined
      ? `runs inline code (${inline})`
      : args.length === 0
        ? 'reads code from stdin'
        : 'runs code from a script or its own prompt'
  return commandIssue(
    'command_inline_code',
    `${shown} is a shell, interpreter or interactive program and ${what}.`,
    `Run the program you need directly, not through ${name}. If this program must run scripts, the policy has to allow it with allowExec.`,
  )
}

function checkRule(word: string, args: readonly string[], rule: ProgramRule): PlanIssue[] {
  const issues: PlanIssue[] = []
  if (rule.subcommands !== undefined) {
    const position = findSubcommand(programName(word), args)
    const subcommand = 'unknownOption' in position ? undefined : position.subcommand
    if ('unknownOption' in position) {
      issues.push(
        commandIssue(
          'command_subcommand_not_allowed',
          `${word} ${position.unknownOption} comes before the subcommand and is not a global option the checker knows, so the subcommand cannot be told.`,
          `Put options after the subcommand: ${rule.subcommands.map((name) => `${word} ${name}`).join(', ')}.`,
        ),
      )
    } else if (subcommand === undefined || !rule.subcommands.includes(subcommand)) {
      issues.push(
        commandIssue(
          'command_subcommand_not_allowed',
          subcommand === undefined
            ? `${word} needs a subcommand; the policy allows ${rule.subcommands.join(', ')}.`
            : `${word} ${subcommand} is not allowed; the policy allows ${rule.subcommands.join(', ')}.`,
          `Use one of: ${rule.subcommands.map((name) => `${word} ${name}`).join(', ')}.`,
        ),
      )
    }
  }
  for (const flag of rule.denyFlags ?? []) {
    const used = args.find((argument) => usesFlag(argument, flag))
    if (used !== undefined) {
      issues.push(
        commandIssue(
          'command_flag_denied',
          `${word} ${flag} is denied by the policy (found ${JSON.stringify(used)}).`,
          `Run ${word} without ${flag}.`,
        ),
      )
    }
  }
  return issues
}

function deny(issues: readonly PlanIssue[]): CommandCheckResult {
  const first = issues[0] as PlanIssue
  return { allowed: false, issue: first, issues }
}

function unique(issues: readonly PlanIssue[]): PlanIssue[] {
  const seen = new Set<string>()
  return issues.filter((issue) => {
    const key = `${issue.code}\u0000${issue.message}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

function freeze(result: CommandCheckResult): CommandCheckResult {
  if (result.allowed) return Object.freeze({ allowed: true, argv: Object.freeze([...result.argv]) })
  const issues = Object.freeze(
    result.issues.map((issue) => Object.freeze({ ...issue, path: Object.freeze([...issue.path]) })),
  )
  return Object.freeze({ allowed: false, issue: issues[0] as PlanIssue, issues })
}

function describeValue(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}
