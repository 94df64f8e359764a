import type { CommandPolicy, ProgramRule } from '../schema/command-policy.js'
import type { PathScope } from '../types/path-scope.js'
import type { PlanIssue } from '../types/plan-issue.js'
import { stringAt } from '../util/item-at.js'
import { someOf } from '../util/some-of.js'
import { isCatalogProgram } from './catalog-programs.js'
import { type BuiltinFinding, checkBuiltinRules } from './check-builtin-rules.js'
import { checkCommandPaths, PathVerdicts, protectedNames } from './check-command-paths.js'
import {
  checkInterpreterRule,
  hasInterpreterRule,
  type InterpreterRefusal,
  runnerPackage,
} from './check-interpreter-rule.js'
import { checkUnmodelledProgram } from './check-unmodelled-program.js'
import { allowExecSentence, fitsPolicyLine, policyLineSentence, quoted } from './command-hints.js'
import { commandIssue } from './command-issue.js'
import { findSubcommand } from './global-options.js'
import { isNodeName, isPythonName, readInterpreterEntry } from './interpreter-entry.js'
import { runnerTarget } from './package-runner.js'
import { programKind, programName } from './program-catalog.js'
import { policyWord, SYSTEM_PROGRAM_FOLDERS } from './program-path.js'
import { usesFlag } from './uses-flag.js'
import { type WorkspaceOnDisk, workspaceOnDisk } from './workspace-links.js'

/** Programs a hint names before it says how many more the policy allows. */
const MAX_LISTED_PROGRAMS = 12

/** What the program checks need from the policy, read once per checker. */
export interface ProgramCheckContext {
  readonly allow: ReadonlySet<string>
  readonly rules: ReadonlyMap<string, ProgramRule>
  readonly scope: PathScope
  /** The hint of a program that is not allowed. */
  readonly allowHint: string
  /** First path segments of the protected paths inside the first root. */
  readonly protectedNames: readonly string[]
  /** The path verdicts of words already checked under this scope. */
  readonly pathVerdicts: PathVerdicts
  /** The workspace on disk, when a root exists there: path values are judged at their links' targets. */
  readonly workspace: WorkspaceOnDisk | undefined
}

/** Reads the parts of a command policy that every program check uses. */
export function createProgramCheckContext(
  policy: CommandPolicy,
  scope: PathScope,
): ProgramCheckContext {
  const allow = new Set(policy.allow)
  return {
    allow,
    rules: new Map<string, ProgramRule>(Object.entries(policy.rules ?? {})),
    scope,
    allowHint:
      allow.size > 0
        ? `Use one of: ${someOf([...allow].sort(), MAX_LISTED_PROGRAMS)}.`
        : 'The policy allows no programs; do not run commands.',
    protectedNames: protectedNames(scope),
    pathVerdicts: new PathVerdicts(),
    workspace: workspaceOnDisk(scope),
  }
}

/**
 * Checks one command's words against the policy: the kind of program (dangerous, wrapper,
 * interpreter), its built-in rules, the allow list, the policy's rule for it, and — with
 * `withPaths` — every argument that may name a file.
 */
export function checkProgram(
  context: ProgramCheckContext,
  argv: readonly string[],
  withPaths: boolean,
): PlanIssue[] {
  const given = argv[0] ?? ''
  const word = policyWord(given, context.allow) ?? given
  const name = programName(word)
  const rule = context.rules.get(word)
  const allowExec = rule?.allowExec === true
  const args = argv.slice(1)
  const target = rule === undefined ? runnerTarget(name, args, context.allow) : undefined
  if (target !== undefined && context.allow.has(word))
    return checkProgram(context, target, withPaths)
  const issues: PlanIssue[] = []
  const runner = entryRunner(name, args, rule, context, issues)
  const modelledName = runner === undefined ? name : stringAt(runner, 0)
  const modelledArgs = runner === undefined ? args : runner.slice(1)
  if (runner === undefined) issues.push(...kindIssues(name, word, args, rule, context.scope))
  const runnerExec = runner !== undefined && context.rules.get(modelledName)?.allowExec === true
  for (const finding of checkBuiltinRules(modelledName, modelledArgs)) {
    if (finding.kind === 'exec' && (allowExec || runnerExec)) continue
    if (
      finding.kind === 'write' &&
      finding.flag !== undefined &&
      rule?.allowFlags?.includes(finding.flag)
    )
      continue
    issues.push(commandIssue(finding.code, finding.message, withPolicyLine(finding, word)))
  }
  const notAllowed = allowListIssue(context, given, word, name)
  if (notAllowed !== undefined) issues.push(notAllowed)
  if (rule !== undefined) issues.push(...checkRule(word, args, rule))
  if (!allowExec && !isCatalogProgram(name)) issues.push(...checkUnmodelledProgram(word, args))
  if (withPaths && rule?.skipPathCheck !== true)
    issues.push(
      ...checkCommandPaths(
        modelledName,
        modelledArgs,
        context.scope,
        context.protectedNames,
        undefined,
        context.pathVerdicts,
        context.workspace,
      ),
    )
  return issues
}

/**
 * For python or node allowed without a rule of their own: the runner an entry point hands the
 * rest of the words to (`python -m pytest -q` is checked as `pytest -q`), or undefined when
 * the command is checked as itself. A refused entry adds its issue.
 */
function entryRunner(
  name: string,
  args: readonly string[],
  rule: ProgramRule | undefined,
  context: ProgramCheckContext,
  issues: PlanIssue[],
): readonly string[] | undefined {
  if (rule?.allowExec === true || hasInterpreterRule(rule)) return undefined
  if (!isPythonName(name) && !isNodeName(name)) return undefined
  const entry = readInterpreterEntry(name, args, context.scope)
  if ('refused' in entry) {
    issues.push(commandIssue('command_inline_code', entry.refused, entryHint(name, entry.module)))
    return [name]
  }
  return entry.runner ?? [name, ...args]
}

// How to run an interpreter the policy allows without a rule, when its entry is refused.
function entryHint(name: string, module: string | undefined): string {
  const script = `Run a script file of the workspace (${name} scripts/build.${isPythonName(name) ? 'py' : 'mjs'}).`
  if (module !== undefined && MODULE_NAME.test(module) && fitsPolicyLine(module))
    return `${script} ${policyLineSentence(`commands.rules.${name}.modules`, `[${JSON.stringify(module)}]`)} A rule with modules lets ${name} run only the modules and scripts it lists.`
  return `${script} ${allowExecSentence(name)}`
}

// A module name the policy schema accepts in `modules`.
const MODULE_NAME = /^[A-Za-z_][A-Za-z0-9_.]*$/

// Programs that are never allowed, or only with allowExec or an interpreter rule.
function kindIssues(
  name: string,
  word: string,
  args: readonly string[],
  rule: ProgramRule | undefined,
  scope: PathScope,
): PlanIssue[] {
  const kind = programKind(name)
  if (kind === undefined) return []
  const allowExec = rule?.allowExec === true
  const shown = quoted(word)
  switch (kind) {
    case 'dangerous':
      return [
        commandIssue(
          'command_dangerous_program',
          `${shown} evaluates code, changes identity or escapes confinement; it is never allowed.`,
          `Run the program you need directly, as the current user, in its own step; no policy line allows ${shown}.`,
        ),
      ]
    case 'wrapper':
      if (allowExec) return []
      if (hasInterpreterRule(rule)) return interpreterRuleIssue(word, args, rule, scope)
      return [
        commandIssue(
          'command_wrapper',
          `${shown} runs another program, which would escape the command checks.`,
          wrapperHint(name, word, args),
        ),
      ]
    case 'interpreter':
      if (allowExec) return []
      if (hasInterpreterRule(rule)) return interpreterRuleIssue(word, args, rule, scope)
      if (isPythonName(name) || isNodeName(name)) return []
      return [interpreterIssue(word, shown, args)]
    case 'interactive':
      return allowExec ? [] : [interpreterIssue(word, shown, args)]
    default:
      return []
  }
}

// A wrapper's hint: the runner's package line, or the inner program run directly.
function wrapperHint(name: string, word: string, args: readonly string[]): string {
  const target = runnerPackage(name, args)
  if (target !== undefined && fitsPolicyLine(target))
    return `Run only packages the policy names. ${policyLineSentence(`commands.rules.${word}.packages`, `[${JSON.stringify(target)}]`)}`
  if (name === 'env')
    return 'Run the inner program directly (without env) in its own step: environment variables cannot be set from a command.'
  if (name === 'xargs')
    return 'Run the inner program directly in its own step, naming its arguments instead of piping them to xargs.'
  return `Run the inner program directly (without ${name}) in its own step; set limits in the tool, not the command.`
}

// A built-in finding's hint, with the policy line that would lift it. An option the checker
// cannot place before a subcommand has none: it is moved, not allowed.
function withPolicyLine(finding: BuiltinFinding, word: string): string {
  if (finding.hint.includes('commands.rules.')) return finding.hint
  if (finding.kind === 'exec' && finding.code !== 'command_flag_denied')
    return `${finding.hint} ${allowExecSentence(word)}`
  if (finding.kind === 'write' && finding.flag !== undefined)
    return `${finding.hint} ${policyLineSentence(`commands.rules.${word}.allowFlags`, `[${JSON.stringify(finding.flag)}]`)}`
  return finding.hint
}

function allowListIssue(
  context: ProgramCheckContext,
  given: string,
  word: string,
  name: string,
): PlanIssue | undefined {
  if (word.includes('/'))
    return commandIssue(
      'command_not_allowed',
      `The program is given as a path (${quoted(given)}) that is not an allowed program in a system program folder (${SYSTEM_PROGRAM_FOLDERS.join(', ')}).`,
      `${fitsPolicyLine(name) ? `Run the program by its bare name (${JSON.stringify(name)}${context.allow.has(name) ? '' : ', once commands.allow lists it'})` : 'Run an allowed program by its bare name'}: no policy line allows a program file outside those folders, which the agent may have written.`,
    )
  if (!context.allow.has(word))
    return commandIssue(
      'command_not_allowed',
      `The program ${quoted(word)} is not in commands.allow.`,
      fitsPolicyLine(word)
        ? `${context.allowHint} To allow it, add ${JSON.stringify(word)} to commands.allow.`
        : `${context.allowHint} A program name this long is not one to allow.`,
    )
  return undefined
}

function interpreterRuleIssue(
  word: string,
  args: readonly string[],
  rule: ProgramRule,
  scope: PathScope,
): PlanIssue[] {
  const refusal = checkInterpreterRule(programName(word), args, rule, scope)
  if (refusal === undefined) return []
  return [commandIssue('command_inline_code', refusal.message, interpreterRuleHint(word, refusal))]
}

// What the rule of an interpreter would need to list for the refused command.
function interpreterRuleHint(word: string, refusal: InterpreterRefusal): string {
  const key = `commands.rules.${word}`
  if (refusal.field === 'test') return policyLineSentence(`${key}.test`, 'true')
  const value = refusal.value
  if (refusal.field !== undefined && value !== undefined && fitsPolicyLine(value)) {
    const listed = refusal.field === 'modules' && !MODULE_NAME.test(value) ? undefined : value
    if (listed !== undefined)
      return `Run only what ${key}.${refusal.field} lists. ${policyLineSentence(`${key}.${refusal.field}`, `[${JSON.stringify(listed)}]`)}`
  }
  if (refusal.field === 'scripts')
    return `Run a script under a workspace.readOnly folder and list it in ${key}.scripts: a script the agent can write is inline code by another name.`
  return `Run only the modules, scripts or packages ${key} lists. ${allowExecSentence(word)}`
}

function interpreterIssue(word: string, shown: string, args: readonly string[]): PlanIssue {
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
      ? `runs inline code (${quoted(inline)})`
      : args.length === 0
        ? 'reads code from stdin'
        : 'runs code from a script or its own prompt'
  return commandIssue(
    'command_inline_code',
    `${shown} is a shell, interpreter or interactive program and ${what}.`,
    `Run the program you need directly, not through ${word}. ${allowExecSentence(word)}`,
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
          `${word} ${quoted(position.unknownOption)} comes before the subcommand and is not a global option the checker knows, so the subcommand cannot be told.`,
          `Put options after the subcommand: ${rule.subcommands.map((name) => `${word} ${name}`).join(', ')}.`,
        ),
      )
    } else if (subcommand === undefined || !rule.subcommands.includes(subcommand)) {
      issues.push(
        commandIssue(
          'command_subcommand_not_allowed',
          subcommand === undefined
            ? `${word} needs a subcommand; the policy allows ${rule.subcommands.join(', ')}.`
            : `${word} ${quoted(subcommand)} is not allowed; the policy allows ${rule.subcommands.join(', ')}.`,
          `Use one of: ${rule.subcommands.map((name) => `${word} ${name}`).join(', ')}${subcommand === undefined || !fitsPolicyLine(subcommand) ? '' : `; to allow it, add ${JSON.stringify(subcommand)} to commands.rules.${word}.subcommands`}.`,
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
          `${word} ${flag} is denied by the policy (found ${quoted(used)}).`,
          `Run ${word} without ${flag}; to allow it, remove ${JSON.stringify(flag)} from commands.rules.${word}.denyFlags.`,
        ),
      )
    }
  }
  return issues
}
