import type { Language, Node, TreeCursor } from 'web-tree-sitter'
import type { IssueCode, PlanIssue } from '../types/plan-issue.js'
import { valueAt } from '../util/item-at.js'
import { COMMAND_HINTS } from './command-hints.js'
import { commandIssue } from './command-issue.js'
import type { LexedWord } from './lex-command.js'

/** What the Bash grammar says about a command. */
export interface SyntaxAnalysis {
  /** Every shell feature found, in source order. */
  readonly issues: readonly PlanIssue[]
  /** The words of every command in the tree whose words are all literals (for program checks). */
  readonly commands: readonly (readonly string[])[]
  /** The words, when the whole input is exactly one simple command of literal words. */
  readonly simple: readonly LexedWord[] | undefined
}

interface Rule {
  readonly code: IssueCode
  readonly message: string
  readonly hint: string
}

const rule = (code: IssueCode, message: string, hint: string): Rule => ({ code, message, hint })

// Node types that make a command more than one simple command of literal words.
const RULES: Readonly<Record<string, Rule>> = {
  list: rule('command_list', 'The command chains commands with && or ||.', COMMAND_HINTS.list),
  pipeline: rule('command_pipeline', 'The command is a pipeline (|).', COMMAND_HINTS.pipeline),
  file_redirect: rule(
    'command_redirection',
    'The command contains a redirection.',
    COMMAND_HINTS.redirection,
  ),
  herestring_redirect: rule(
    'command_redirection',
    'The command contains a here-string (<<<).',
    COMMAND_HINTS.redirection,
  ),
  heredoc_redirect: rule(
    'command_heredoc',
    'The command contains a here-document (<<).',
    COMMAND_HINTS.heredoc,
  ),
  command_substitution: rule(
    'command_substitution',
    'The command contains a command substitution ($( ) or backticks).',
    COMMAND_HINTS.substitution,
  ),
  process_substitution: rule(
    'command_substitution',
    'The command contains a process substitution (<( ) or >( )).',
    COMMAND_HINTS.substitution,
  ),
  arithmetic_expansion: rule(
    'command_substitution',
    'The command contains an arithmetic expansion $(( )).',
    COMMAND_HINTS.substitution,
  ),
  simple_expansion: rule(
    'command_expansion',
    'The command contains a variable expansion ($NAME).',
    COMMAND_HINTS.expansion,
  ),
  expansion: rule(
    'command_expansion',
    `The command contains a parameter expansion \${…}.`,
    COMMAND_HINTS.expansion,
  ),
  ansi_c_string: rule(
    'command_expansion',
    "The command contains an ANSI-C string $'…'.",
    COMMAND_HINTS.expansion,
  ),
  translated_string: rule(
    'command_expansion',
    'The command contains a translated string $"…".',
    COMMAND_HINTS.expansion,
  ),
  subshell: rule('command_subshell', 'The command runs in a subshell ( ).', COMMAND_HINTS.subshell),
  compound_statement: rule(
    'command_subshell',
    'The command contains a group { …; } or (( )).',
    COMMAND_HINTS.subshell,
  ),
  function_definition: rule(
    'command_function',
    'The command defines a shell function.',
    COMMAND_HINTS.function,
  ),
  variable_assignment: rule(
    'command_assignment',
    'The command contains a NAME=value assignment.',
    COMMAND_HINTS.assignment,
  ),
  variable_assignments: rule(
    'command_assignment',
    'The command contains NAME=value assignments.',
    COMMAND_HINTS.assignment,
  ),
  declaration_command: rule(
    'command_assignment',
    'The command declares or exports a variable.',
    COMMAND_HINTS.assignment,
  ),
  unset_command: rule(
    'command_assignment',
    'The command unsets a variable or function.',
    COMMAND_HINTS.assignment,
  ),
  if_statement: rule(
    'command_control_flow',
    'The command contains an if statement.',
    COMMAND_HINTS.controlFlow,
  ),
  for_statement: rule(
    'command_control_flow',
    'The command contains a for or select loop.',
    COMMAND_HINTS.controlFlow,
  ),
  c_style_for_statement: rule(
    'command_control_flow',
    'The command contains a for (( )) loop.',
    COMMAND_HINTS.controlFlow,
  ),
  while_statement: rule(
    'command_control_flow',
    'The command contains a while or until loop.',
    COMMAND_HINTS.controlFlow,
  ),
  case_statement: rule(
    'command_control_flow',
    'The command contains a case statement.',
    COMMAND_HINTS.controlFlow,
  ),
  test_command: rule(
    'command_control_flow',
    'The command contains a [[ ]] or (( )) test.',
    COMMAND_HINTS.controlFlow,
  ),
  negated_command: rule(
    'command_control_flow',
    'The command is negated with !.',
    COMMAND_HINTS.controlFlow,
  ),
  brace_expression: rule(
    'command_brace_expansion',
    'The command contains a brace expansion {a..b}.',
    COMMAND_HINTS.brace,
  ),
  comment: rule('command_invalid', 'The command contains a # comment.', COMMAND_HINTS.comment),
}

// Literal word nodes, and the parts of reported constructs that need no report of their own.
const QUIET = new Set([
  'program',
  'command',
  'command_name',
  'word',
  'number',
  'string',
  'string_content',
  'raw_string',
  'concatenation',
  'redirected_statement',
  'variable_name',
  'special_variable_name',
  'subscript',
  'file_descriptor',
  'heredoc_start',
  'heredoc_body',
  'heredoc_end',
  'heredoc_content',
  'elif_clause',
  'else_clause',
  'do_group',
  'case_item',
  'binary_expression',
  'unary_expression',
  'ternary_expression',
  'postfix_expression',
  'parenthesized_expression',
  'test_operator',
  'regex',
  'extglob_pattern',
  'array',
])

const SKIPPED_WHEN_LENIENT = new Set([
  'variable_assignment',
  'file_redirect',
  'herestring_redirect',
  'heredoc_redirect',
])
const LITERAL_TYPES = new Set(['word', 'number', 'string', 'raw_string', 'concatenation'])

/**
 * The one issue the walk reports for plain commands joined only by `&&` and `||` (`list`), or
 * only by `|` (`pipeline`), or for one command after one `NAME=value` (`variable_assignment`).
 */
export function plainSyntaxIssue(type: 'list' | 'pipeline' | 'variable_assignment'): PlanIssue {
  const found = valueAt(RULES, type)
  return commandIssue(found.code, found.message, found.hint)
}

/** Type names and named flags by type id, read once per grammar instead of once per node. */
interface Kinds {
  readonly names: readonly (string | undefined)[]
  readonly named: Uint8Array
}

const KINDS = new WeakMap<Language, Kinds>()

function kindsOf(language: Language): Kinds {
  let kinds = KINDS.get(language)
  if (kinds === undefined) {
    const named = new Uint8Array(language.nodeTypeCount)
    for (let id = 0; id < named.length; id += 1) named[id] = language.nodeTypeIsNamed(id) ? 1 : 0
    kinds = { names: language.types, named }
    KINDS.set(language, kinds)
  }
  return kinds
}

/** The cursor's node type, as `cursor.nodeType` gives it, with one call into the parser. */
function typeOf(kinds: Kinds, id: number): string {
  return kinds.names[id] || 'ERROR'
}

/** Whether a type id is named, as `cursor.nodeIsNamed` says (ERROR, past the table, is named). */
function isNamed(kinds: Kinds, id: number): boolean {
  return id >= kinds.named.length || kinds.named[id] === 1
}

const PARSE_ERROR = rule(
  'command_parse_error',
  'The command is not valid Bash syntax (or uses syntax the checker does not accept).',
  COMMAND_HINTS.parse,
)
const ARITHMETIC_COMMAND = rule(
  'command_control_flow',
  'The command contains an arithmetic command (( )).',
  COMMAND_HINTS.controlFlow,
)

/** The issues found so far (one per code and message, in source order) and the commands. */
class SyntaxFindings {
  readonly issues: PlanIssue[] = []
  readonly #seen = new Set<string>()
  /** Named node types that are neither reported nor known to be quiet. */
  readonly unknown: string[] = []
  /** The words of every command whose words are all literals. */
  readonly commands: string[][] = []
  /** The words of the input's only command, when the root holds exactly one command. */
  onlyCommand: Words | undefined

  report(found: Rule): void {
    const key = `${found.code}\u0000${found.message}`
    if (this.#seen.has(key)) return
    this.#seen.add(key)
    this.issues.push(commandIssue(found.code, found.message, found.hint))
  }
}

/** How the walk reads the tree: the cursor, the grammar's type table and the parsed text. */
interface Walk {
  readonly cursor: TreeCursor
  readonly kinds: Kinds
  readonly source: string
  readonly hasError: boolean
  readonly findings: SyntaxFindings
}

/**
 * Walks a tree-sitter Bash syntax tree and reports every construct that is not a plain word,
 * so that only one simple command of literal words passes. ERROR and MISSING nodes deny.
 * `source` is the text that was parsed; word values are read from it.
 */
export function analyzeSyntaxTree(root: Node, source: string): SyntaxAnalysis {
  const findings = new SyntaxFindings()
  const hasError = root.hasError
  if (hasError) findings.report(PARSE_ERROR)
  // Everything is read through one cursor: a Node object per child is the costly part of
  // web-tree-sitter, and word values are sliced from `source` instead of asked for.
  const cursor = root.walk()
  try {
    const kinds = kindsOf(root.tree.language)
    const walk = { cursor, kinds, source, hasError, findings }
    const rootId = cursor.nodeTypeId
    // A `program` root of a tree without errors has nothing to report: its walk may start at
    // its only child, where reading the statements left the cursor.
    const plainRoot = !hasError && typeOf(kinds, rootId) === 'program'
    const onlyChildId = readStatements(walk, plainRoot)
    walkTree(walk, plainRoot && onlyChildId !== -1 ? -1 : rootId, onlyChildId)
  } finally {
    cursor.delete()
  }
  return conclude(findings)
}

/**
 * Reports the separators between the root's statements (`;`, `&`, newlines) and more than one
 * statement. Returns the type id of the root's only child when it is a command, else -1. The
 * cursor is back on the root, except on that only child when `stayOnOnlyChild`.
 */
function readStatements(walk: Walk, stayOnOnlyChild: boolean): number {
  const { cursor, kinds, findings } = walk
  if (!cursor.gotoFirstChild()) return -1
  let statements = 0
  let children = 0
  let firstId = -1
  do {
    const id = cursor.nodeTypeId
    const type = typeOf(kinds, id)
    children += 1
    if (children === 1) firstId = id
    if (!isNamed(kinds, id)) {
      const message =
        type === '&'
          ? 'The command runs a job in the background with &.'
          : `The command contains ${JSON.stringify(type)}, which separates commands.`
      findings.report(rule('command_list', message, COMMAND_HINTS.list))
    } else if (type !== 'comment' && type !== 'ERROR') {
      statements += 1
    }
  } while (cursor.gotoNextSibling())
  const onlyCommand = children === 1 && typeOf(kinds, firstId) === 'command'
  if (onlyCommand && stayOnOnlyChild) return firstId
  cursor.gotoParent()
  if (statements > 1)
    findings.report(
      rule('command_list', 'The input holds more than one command.', COMMAND_HINTS.list),
    )
  return onlyCommand ? firstId : -1
}

/**
 * Visits every node in document order: from the root (of type `rootId`), or, when `rootId` is
 * -1, from the root's only child (of type `onlyChildId`), under which the cursor then is.
 * `onlyChildId` is -1 unless the root's only child is a command.
 */
function walkTree(walk: Walk, rootId: number, onlyChildId: number): void {
  const { cursor } = walk
  const onlyChild = onlyChildId !== -1
  let depth = rootId === -1 ? 1 : 0
  let descend = visit(walk, rootId === -1 ? onlyChildId : rootId, depth === 1 && onlyChild)
  for (;;) {
    // The root's only child was its only command, read whole: nothing is left to visit.
    if (!descend && depth === 1 && onlyChild) return
    if (descend && cursor.gotoFirstChild()) depth += 1
    else {
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) return
        depth -= 1
      }
    }
    descend = visit(walk, cursor.nodeTypeId, depth === 1 && onlyChild)
  }
}

/** Reports the node under the cursor (of type `id`); true when the walk must visit its children. */
function visit(walk: Walk, id: number, onlyCommand: boolean): boolean {
  const { cursor, kinds, findings } = walk
  const type = typeOf(kinds, id)
  // A MISSING node gives the tree an error cost, so only a tree with an error can hold one.
  if (walk.hasError && cursor.nodeIsMissing) {
    findings.report(
      rule(
        'command_parse_error',
        `The command is incomplete: ${JSON.stringify(type)} is missing.`,
        COMMAND_HINTS.parse,
      ),
    )
    return false
  }
  if (!isNamed(kinds, id)) {
    // A `$` token: of a translated string when a quote follows, else of a variable expansion.
    if (type === '$')
      findings.report(
        valueAt(
          RULES,
          walk.source[cursor.endIndex] === '"' ? 'translated_string' : 'simple_expansion',
        ),
      )
    return false
  }
  if (type === 'ERROR') findings.report(PARSE_ERROR)
  else if (
    type === 'compound_statement' &&
    cursor.endIndex - cursor.startIndex >= 2 &&
    walk.source.startsWith('((', cursor.startIndex)
  )
    findings.report(ARITHMETIC_COMMAND)
  else {
    const found = RULES[type]
    if (found !== undefined) findings.report(found)
    else if (!QUIET.has(type)) findings.unknown.push(type)
  }
  if (type !== 'command') return true
  const words = literalCommandWords(cursor, kinds, walk.source)
  if (words === undefined) return true
  findings.commands.push(words.list.map((word) => word.value))
  if (onlyCommand) findings.onlyCommand = words
  // Every node under a command of plain literal words was read by literalCommandWords and is
  // quiet, and a tree without errors holds no MISSING node: nothing below it can be reported.
  return walk.hasError || words.skipped || !words.plain
}

function conclude(findings: SyntaxFindings): SyntaxAnalysis {
  const { issues, unknown, commands, onlyCommand } = findings
  // Name the specific constructs first; a parse error is often only their consequence.
  issues.sort(
    (left, right) =>
      Number(left.code === 'command_parse_error') - Number(right.code === 'command_parse_error'),
  )
  if (issues.length === 0 && unknown.length > 0) {
    findings.report(
      rule(
        'command_parse_error',
        `The command uses shell syntax the checker does not accept (${unknown[0]}).`,
        COMMAND_HINTS.parse,
      ),
    )
  }
  let simple: LexedWord[] | undefined
  // An assignment or redirection skipped for reporting would have made the command not simple.
  if (issues.length === 0 && onlyCommand !== undefined && !onlyCommand.skipped)
    simple = onlyCommand.list
  return { issues, commands, simple }
}

/**
 * A command's literal words; `skipped` when assignments or redirections were left out; `plain`
 * when literalCommandWords read every node below the command (a number with parts, such as
 * `10#$x`, or a part that is not named, leaves nodes for the walk to report).
 */
interface Words {
  readonly list: LexedWord[]
  readonly skipped: boolean
  readonly plain: boolean
}

/** Whether the literals decoded so far had every node below them read. */
interface Reading {
  whole: boolean
}

/**
 * The literal words of the command under the cursor, or undefined when one of its parts is not
 * a literal. For reporting, assignments and redirections (already reported) do not hide the
 * program: they are skipped. The cursor is back on the command node when this returns.
 */
function literalCommandWords(cursor: TreeCursor, kinds: Kinds, source: string): Words | undefined {
  if (!cursor.gotoFirstChild()) return undefined
  const list: LexedWord[] = []
  const reading: Reading = { whole: true }
  let skipped = false
  let literal = true
  do {
    const id = cursor.nodeTypeId
    const type = typeOf(kinds, id)
    if (SKIPPED_WHEN_LENIENT.has(type)) {
      skipped = true
      continue
    }
    if (!isNamed(kinds, id)) literal = false
    else if (type === 'command_name') {
      // A node with one child spans exactly that child: its span is read there.
      const name = commandNameValue(cursor, kinds, source, reading)
      if (name?.value === undefined) literal = false
      else list.push({ start: name.start, end: name.end, value: name.value })
    } else if (LITERAL_TYPES.has(type)) {
      const start = cursor.startIndex
      const end = cursor.endIndex
      const value = decodeLiteral(cursor, kinds, type, start, end, source, reading)
      if (value === undefined) literal = false
      else list.push({ start, end, value })
    } else literal = false
  } while (literal && cursor.gotoNextSibling())
  cursor.gotoParent()
  return literal && list.length > 0 ? { list, skipped, plain: reading.whole } : undefined
}

/** The value and span of a `command_name` node: exactly one child, a named literal. */
function commandNameValue(
  cursor: TreeCursor,
  kinds: Kinds,
  source: string,
  reading: Reading,
): { readonly value: string | undefined; start: number; end: number } | undefined {
  if (!cursor.gotoFirstChild()) return undefined
  let value: string | undefined
  let start = -1
  let end = -1
  const id = cursor.nodeTypeId
  const type = typeOf(kinds, id)
  if (isNamed(kinds, id) && LITERAL_TYPES.has(type)) {
    start = cursor.startIndex
    end = cursor.endIndex
    value = decodeLiteral(cursor, kinds, type, start, end, source, reading)
  }
  const single = !cursor.gotoNextSibling()
  cursor.gotoParent()
  return single ? { value, start, end } : undefined
}

/**
 * The value of the literal node under the cursor; the cursor is back on it when this returns.
 * `reading.whole` turns false when the node holds a node that was not read.
 */
function decodeLiteral(
  cursor: TreeCursor,
  kinds: Kinds,
  type: string,
  start: number,
  end: number,
  source: string,
  reading: Reading,
): string | undefined {
  switch (type) {
    case 'word':
      return decodeUnquoted(source.slice(start, end))
    case 'number':
      // A number's base can be an expansion (`10#$x`): its parts are left to the walk.
      if (reading.whole && cursor.gotoFirstChild()) {
        reading.whole = false
        cursor.gotoParent()
      }
      return decodeUnquoted(source.slice(start, end))
    case 'raw_string': {
      const text = source.slice(start, end)
      return text.length >= 2 && text.startsWith("'") && text.endsWith("'")
        ? text.slice(1, -1)
        : undefined
    }
    case 'string': {
      if (cursor.gotoFirstChild()) {
        let plain = true
        do {
          const part = typeOf(kinds, cursor.nodeTypeId)
          if (part !== '"' && part !== 'string_content') plain = false
        } while (plain && cursor.gotoNextSibling())
        cursor.gotoParent()
        if (!plain) return undefined
      }
      const text = source.slice(start, end)
      if (text.length < 2 || !text.startsWith('"') || !text.endsWith('"')) return undefined
      return decodeDoubleQuoted(text.slice(1, -1))
    }
    case 'concatenation':
      return decodeConcatenation(cursor, kinds, source, reading)
    default:
      return undefined
  }
}

/** The joined value of the literal parts of the concatenation under the cursor. */
function decodeConcatenation(
  cursor: TreeCursor,
  kinds: Kinds,
  source: string,
  reading: Reading,
): string | undefined {
  let joined = ''
  let literal = true
  if (cursor.gotoFirstChild()) {
    do {
      const id = cursor.nodeTypeId
      const part = typeOf(kinds, id)
      if (!isNamed(kinds, id)) reading.whole = false
      const value =
        LITERAL_TYPES.has(part) && part !== 'concatenation'
          ? decodeLiteral(cursor, kinds, part, cursor.startIndex, cursor.endIndex, source, reading)
          : undefined
      if (value === undefined) literal = false
      else joined += value
    } while (literal && cursor.gotoNextSibling())
    cursor.gotoParent()
  }
  return literal ? joined : undefined
}

function decodeUnquoted(text: string): string {
  if (!text.includes('\\')) return text
  let value = ''
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charAt(index)
    if (char === '\\' && index + 1 < text.length) {
      const next = text.charAt(index + 1)
      if (next !== '\n') value += next
      index += 1
    } else {
      value += char
    }
  }
  return value
}

function decodeDoubleQuoted(text: string): string {
  if (!text.includes('\\')) return text
  let value = ''
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charAt(index)
    const next = text[index + 1]
    if (
      char === '\\' &&
      next !== undefined &&
      (next === '$' || next === '`' || next === '"' || next === '\\' || next === '\n')
    ) {
      if (next !== '\n') value += next
      index += 1
    } else {
      value += char
    }
  }
  return value
}
