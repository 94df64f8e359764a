import type { Parser } from 'web-tree-sitter'
import { withBuildFileAlternatives } from '../checks/build-file-alternatives.js'
import { PolicyError } from '../errors/policy-error.js'
import type { CommandPolicy } from '../schema/command-policy.js'
import type { CommandCheckResult } from '../types/command-check-result.js'
import type { PathScope } from '../types/path-scope.js'
import type { PlanIssue } from '../types/plan-issue.js'
import { itemAt } from '../util/item-at.js'
import { isCatalogProgram } from './catalog-programs.js'
import { interpreterRuleIssues } from './check-interpreter-rule.js'
import { createProgramCheckContext } from './check-program.js'
import { commandIssue } from './command-issue.js'
import { CommandResultCache } from './command-result-cache.js'
import { type DiskFact, factsHold, recordDiskFacts } from './disk-verdicts.js'
import { evaluateCommand } from './evaluate-command.js'
import { loadBashRuntime } from './load-bash-language.js'
import { programName } from './program-catalog.js'

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

// Command results kept at most (two generations of half as many).
const CACHE_SIZE = 512
// Disk answers a kept verdict may depend on: each is asked again on every hit.
const MAX_DISK_FACTS = 16

/** A verdict, and the disk's answers it was reached with (asked again before it is reused). */
interface CachedVerdict {
  readonly result: CommandCheckResult
  readonly facts: readonly DiskFact[]
}

/**
 * Creates a command checker: loads the tree-sitter Bash grammar (once per process) and gives
 * the checker its own parser. Every command is parsed by the grammar and by an independent strict
 * tokenizer (or, when it is only plain words, read directly as both would read it); it is
 * allowed only when both see the same single simple command of literal words, the program is
 * allowed, and no built-in or policy rule refuses its arguments.
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
  const runtime = await loadBashRuntime()
  let parser: Parser | undefined
  // Failed loads of the grammar so far: a command refused for one is not cached.
  let failedLoads = 0
  const grammarParser = () => {
    if (parser === undefined) {
      try {
        const { language, Parser } = runtime.load()
        parser = new Parser()
        parser.setLanguage(language)
      } catch (error) {
        failedLoads += 1
        throw error
      }
    }
    return parser
  }
  const { policy } = options
  // A read-only build file protects what its tool reads in its place (as the policy resolves it).
  const given = options.scope
  const scope = { ...given, readOnly: withBuildFileAlternatives(given.readOnly, given.roots) }
  const context = createProgramCheckContext(policy, scope)
  const policyIssues = [...context.rules].flatMap(([word, rule]) =>
    interpreterRuleIssues(word, rule, scope),
  )
  if (policyIssues.length > 0) throw new PolicyError(policyIssues)
  const evaluation = { parser: grammarParser, maxLength: policy.maxLength, context }
  const cache = new CommandResultCache<CachedVerdict>(CACHE_SIZE / 2)
  return {
    warnings: unmodelledWarnings(context.allow),
    check(command: unknown): CommandCheckResult {
      if (typeof command !== 'string') return evaluateCommand(evaluation, command)
      const cached = cache.get(command)
      // A verdict that looked at the disk holds while the disk gives the same answers.
      if (cached !== undefined && (cached.facts.length === 0 || factsHold(cached.facts)))
        return cached.result
      const failed = failedLoads
      const { value, facts } = recordDiskFacts(() => evaluateCommand(evaluation, command))
      const result = freeze(value)
      if (facts.length <= MAX_DISK_FACTS && failedLoads === failed)
        cache.set(command, { result, facts })
      return result
    },
  }
}

function unmodelledWarnings(allow: ReadonlySet<string>): readonly PlanIssue[] {
  return Object.freeze(
    [...allow]
      .filter((word) => !isCatalogProgram(programName(word)))
      .sort()
      .map((word) =>
        Object.freeze(
          commandIssue(
            'command_unmodelled_program',
            `The allowed program ${JSON.stringify(word)} has no built-in model: its flags and operands are checked only generically (paths, shell syntax), and are otherwise guarded by the sandbox alone.`,
            `Narrow it with commands.rules.${word}.subcommands or commands.rules.${word}.denyFlags, or run it only inside the sandbox.`,
          ),
        ),
      ),
  )
}

function freeze(result: CommandCheckResult): CommandCheckResult {
  // The argv of an allowed result is the evaluation's own new array: frozen as it is.
  if (result.allowed) return Object.freeze({ allowed: true, argv: Object.freeze(result.argv) })
  const issues = Object.freeze(
    result.issues.map((issue) => Object.freeze({ ...issue, path: Object.freeze([...issue.path]) })),
  )
  return Object.freeze({ allowed: false, issue: itemAt(issues, 0), issues })
}
