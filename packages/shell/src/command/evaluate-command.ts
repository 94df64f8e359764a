import type { Parser } from 'web-tree-sitter'
import type { CommandCheckResult } from '../types/command-check-result.js'
import type { PlanIssue } from '../types/plan-issue.js'
import { itemAt, stringAt } from '../util/item-at.js'
import { hasUnsafeCommandCharacter } from '../util/unsafe-characters.js'
import { analyzeSyntaxTree, plainSyntaxIssue, type SyntaxAnalysis } from './analyze-syntax-tree.js'
import { checkProgram, type ProgramCheckContext } from './check-program.js'
import { COMMAND_HINTS } from './command-hints.js'
import { commandIssue } from './command-issue.js'
import { type LexResult, lexCommand } from './lex-command.js'
import { PIPE } from './lex-operator.js'
import { plainCommands } from './plain-command-words.js'
import { policyWord } from './program-path.js'

/** What one command check needs: the checker's parser, the length limit and the policy. */
export interface CommandEvaluation {
  /** The parser with the grammar set, which plain commands are read without. */
  readonly parser: () => Parser
  readonly maxLength: number
  readonly context: ProgramCheckContext
}

/**
 * Checks one command without a cache: the input itself, then the grammar's and the strict
 * tokenizer's reading of it (both must see the same one simple command of literal words; plain
 * commands are read directly, as both read them), then the program and its arguments.
 */
export function evaluateCommand(
  evaluation: CommandEvaluation,
  command: unknown,
): CommandCheckResult {
  const invalid = inputIssue(command, evaluation.maxLength)
  if (invalid !== undefined) return deny([invalid])
  const text = String(command)
  const plain = readPlainCommands(text)
  const parser = plain === undefined ? grammarParser(evaluation) : undefined
  if (parser instanceof Error) return deny([grammarIssue(parser)])
  const reading = plain ?? (parser === undefined ? undefined : readCommand(parser, text))
  return reading === undefined
    ? deny([
        commandIssue(
          'command_parse_error',
          'The command could not be parsed.',
          COMMAND_HINTS.parse,
        ),
      ])
    : judgeCommand(evaluation.context, reading)
}

/** The checker's parser, or why the grammar could not be loaded (tried again at the next call). */
function grammarParser(evaluation: CommandEvaluation): Parser | Error {
  try {
    return evaluation.parser()
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error))
  }
}

/** A command the grammar must read while it cannot be loaded is refused, never let through. */
function grammarIssue(error: Error): PlanIssue {
  return commandIssue(
    'command_parse_error',
    `The Bash grammar could not be loaded to read this command: ${error.message}`,
    'Reinstall @plan/shell: the files in its vendor/ folder are damaged. Commands of plain literal words are still checked.',
  )
}

/** What the shell syntax of a command says: its issues, and its words when it is plain. */
export interface CommandReading {
  readonly issues: PlanIssue[]
  /** The words, when the command is one simple command of literal words with no issue. */
  readonly argv: readonly string[] | undefined
  /** The words of every command in it whose words are all literals (for program checks). */
  readonly commands: readonly (readonly string[])[]
}

/**
 * The reading of plain commands (see {@link plainCommands}), which needs neither the grammar
 * nor the tokenizer: it is the one {@link readCommand} gives, or undefined.
 */
export function readPlainCommands(text: string): CommandReading | undefined {
  const plain = plainCommands(text)
  if (plain === undefined) return undefined
  const { commands, and, or, assignment } = plain
  if (assignment)
    return { issues: [plainSyntaxIssue('variable_assignment')], argv: undefined, commands }
  if (commands.length === 1) return { issues: [], argv: commands[0], commands }
  const issues = [plainSyntaxIssue(and || or ? 'list' : 'pipeline')]
  // The tokenizer reads the second `|` of `||` as a pipe, an issue of a code of its own.
  if (or) issues.push(commandIssue(PIPE.code, PIPE.message, PIPE.hint))
  return { issues, argv: undefined, commands }
}

/**
 * The grammar's and the strict tokenizer's reading of a command (both must see the same one
 * simple command of literal words), or undefined when the grammar gives no tree.
 */
export function readCommand(parser: Parser, text: string): CommandReading | undefined {
  const syntax = analyze(parser, text)
  if (syntax === undefined) return undefined
  const lexed = lexCommand(text)
  const issues = mergeIssues(syntax, lexed)
  let argv: string[] | undefined
  if (issues.length === 0) {
    if (agree(syntax, lexed)) argv = lexed.words.map((word) => word.value)
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
  return { issues, argv, commands: syntax.commands }
}

/** The verdict on a command from its reading: the program and its arguments are checked. */
export function judgeCommand(
  context: ProgramCheckContext,
  reading: CommandReading,
): CommandCheckResult {
  const { argv, issues } = reading
  if (argv !== undefined) issues.push(...checkProgram(context, argv, true))
  else for (const words of reading.commands) issues.push(...checkProgram(context, words, false))
  // An allowed program given by its path in a system folder runs by its bare name.
  if (argv !== undefined && issues.length === 0)
    return {
      allowed: true,
      argv: [policyWord(stringAt(argv, 0), context.allow) ?? '', ...argv.slice(1)],
    }
  return deny(unique(issues))
}

// The largest commands.maxLength the policy schema accepts.
const MAX_POLICY_LENGTH = 1_000_000

// Not a string, empty, too long, or holding characters no command needs.
function inputIssue(command: unknown, maxLength: number): PlanIssue | undefined {
  if (typeof command !== 'string')
    return commandIssue(
      'command_invalid',
      `A command must be a string, got ${describeValue(command)}.`,
      'Pass the command as one string, e.g. "git status".',
    )
  if (command.trim().length === 0)
    return commandIssue(
      'command_invalid',
      'The command is empty.',
      'Pass a command, e.g. "git status".',
    )
  if (command.length > maxLength)
    return commandIssue(
      'command_invalid',
      `The command is ${command.length} characters long (at most ${maxLength}).`,
      command.length <= MAX_POLICY_LENGTH
        ? `Run a shorter command; pass long text through a file tool. The policy line commands.maxLength: ${command.length} would allow it.`
        : 'Run a shorter command; pass long text through a file tool.',
    )
  if (!isPrintableAscii(command) && hasUnsafeCommandCharacter(command))
    return commandIssue(
      'command_invalid',
      'The command contains a NUL, control or invisible formatting character.',
      'Remove control characters; write the command in plain text.',
    )
  return undefined
}

// Printable ASCII, tab and newline only: no character the unsafe-character check refuses.
const NOT_PRINTABLE_ASCII = /[^\t\n\x20-\x7e]/

function isPrintableAscii(command: string): boolean {
  return !NOT_PRINTABLE_ASCII.test(command)
}

function analyze(parser: Parser, command: string): SyntaxAnalysis | undefined {
  const tree = parser.parse(command)
  if (tree === null) return undefined
  try {
    return analyzeSyntaxTree(tree.rootNode, command)
  } finally {
    tree.delete()
  }
}

// The grammar's issues, then the tokenizer's of other codes; parse errors last, as the
// specific constructs are named first (a parse error is often only their consequence).
function mergeIssues(syntax: SyntaxAnalysis, lexed: LexResult): PlanIssue[] {
  const issues: PlanIssue[] = [...syntax.issues]
  if (lexed.issues.length === 0) return issues
  const codes = new Set(issues.map((issue) => issue.code))
  for (const issue of lexed.issues) if (!codes.has(issue.code)) issues.push(issue)
  issues.sort(
    (left, right) =>
      Number(left.code === 'command_parse_error') - Number(right.code === 'command_parse_error'),
  )
  return issues
}

// Both readings hold the same words at the same places.
function agree(syntax: SyntaxAnalysis, lexed: LexResult): boolean {
  const simple = syntax.simple
  return (
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
  )
}

function deny(issues: readonly PlanIssue[]): CommandCheckResult {
  const first = itemAt(issues, 0)
  return { allowed: false, issue: first, issues }
}

// The issues without repeats (same code and message); lists are short, so pairs are compared.
function unique(issues: readonly PlanIssue[]): readonly PlanIssue[] {
  if (issues.length < 2) return issues
  return issues.filter((issue, index) => {
    for (let earlier = 0; earlier < index; earlier += 1) {
      const other = itemAt(issues, earlier)
      if (other.code === issue.code && other.message === issue.message) return false
    }
    return true
  })
}

function describeValue(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}
