import type { Node, TreeCursor } from 'web-tree-sitter'
import type { IssueCode, PlanIssue } from '../issues/plan-issue.js'
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
 * Walks a tree-sitter Bash syntax tree and reports every construct that is not a plain word,
 * so that only one simple command of literal words passes. ERROR and MISSING nodes deny.
 */
export function analyzeSyntaxTree(root: Node): SyntaxAnalysis {
  const issues: PlanIssue[] = []
  const seen = new Set<string>()
  const report = (found: Rule) => {
    const key = `${found.code}\u0000${found.message}`
    if (seen.has(key)) return
    seen.add(key)
    issues.push(commandIssue(found.code, found.message, found.hint))
  }
  const unknown: string[] = []
  const commands: string[][] = []
  if (root.hasError) {
    report(
      rule(
        'command_parse_error',
        'The command is not valid Bash syntax (or uses syntax the checker does not accept).',
        COMMAND_HINTS.parse,
      ),
    )
  }
  for (const child of root.children) {
    if (child === null || child.isNamed) continue
    if (child.type === '&')
      report(
        rule(
          'command_list',
          'The command runs a job in the background with &.',
          COMMAND_HINTS.list,
        ),
      )
    else
      report(
        rule(
          'command_list',
          `The command contains ${JSON.stringify(child.type)}, which separates commands.`,
          COMMAND_HINTS.list,
        ),
      )
  }
  const statements = root.namedChildren.filter(
    (child) => child !== null && child.type !== 'comment' && child.type !== 'ERROR',
  )
  if (statements.length > 1) {
    report(rule('command_list', 'The input holds more than one command.', COMMAND_HINTS.list))
  }
  const visit = (cursor: TreeCursor) => {
    const type = cursor.nodeType
    if (cursor.nodeIsMissing) {
      report(
        rule(
          'command_parse_error',
          `The command is incomplete: ${JSON.stringify(type)} is missing.`,
          COMMAND_HINTS.parse,
        ),
      )
      return
    }
    if (!cursor.nodeIsNamed) {
      if (type === '$') report(RULES.translated_string as Rule)
      return
    }
    if (type === 'ERROR') {
      report(
        rule(
          'command_parse_error',
          'The command is not valid Bash syntax (or uses syntax the checker does not accept).',
          COMMAND_HINTS.parse,
        ),
      )
    } else if (type === 'compound_statement' && cursor.nodeText.startsWith('((')) {
      report(
        rule(
          'command_control_flow',
          'The command contains an arithmetic command (( )).',
          COMMAND_HINTS.controlFlow,
        ),
      )
    } else {
      const found = RULES[type]
      if (found !== undefined) report(found)
      else if (!QUIET.has(type)) unknown.push(type)
    }
    if (type === 'command') {
      const words = literalCommandWords(cursor.currentNode, true)
      if (words !== undefined) commands.push(words.map((word) => word.value))
    }
  }
  // A cursor walk avoids materialising every node object (the costly part of web-tree-sitter).
  const cursor = root.walk()
  try {
    let visiting = true
    while (visiting) {
      visit(cursor)
      if (cursor.nodeIsMissing || !cursor.nodeIsNamed || !cursor.gotoFirstChild()) {
        while (!cursor.gotoNextSibling()) {
          if (!cursor.gotoParent()) {
            visiting = false
            break
          }
        }
      }
    }
  } finally {
    cursor.delete()
  }
  // Name the specific constructs first; a parse error is often only their consequence.
  issues.sort(
    (left, right) =>
      Number(left.code === 'command_parse_error') - Number(right.code === 'command_parse_error'),
  )
  if (issues.length === 0 && unknown.length > 0) {
    report(
      rule(
        'command_parse_error',
        `The command uses shell syntax the checker does not accept (${unknown[0]}).`,
        COMMAND_HINTS.parse,
      ),
    )
  }
  let simple: LexedWord[] | undefined
  if (issues.length === 0 && root.childCount === 1) {
    const only = root.firstChild
    if (only !== null && only.type === 'command') simple = literalCommandWords(only)
  }
  return { issues, commands, simple }
}

/** The literal words of a command node, or undefined when one of its parts is not a literal. */
function literalCommandWords(command: Node, lenient = false): LexedWord[] | undefined {
  const words: LexedWord[] = []
  for (const child of command.children) {
    // For reporting, assignments and redirections (already reported) do not hide the program.
    if (lenient && child !== null && SKIPPED_WHEN_LENIENT.has(child.type)) continue
    if (child === null || !child.isNamed) return undefined
    let wordNode: Node | null = child
    if (child.type === 'command_name') {
      if (child.namedChildCount !== 1 || child.childCount !== 1) return undefined
      wordNode = child.firstChild
    }
    if (wordNode === null || !LITERAL_TYPES.has(wordNode.type)) return undefined
    const value = decodeLiteral(wordNode)
    if (value === undefined) return undefined
    words.push({ start: child.startIndex, end: child.endIndex, value })
  }
  return words.length > 0 ? words : undefined
}

function decodeLiteral(node: Node): string | undefined {
  switch (node.type) {
    case 'word':
    case 'number':
      return decodeUnquoted(node.text)
    case 'raw_string': {
      const text = node.text
      return text.length >= 2 && text.startsWith("'") && text.endsWith("'")
        ? text.slice(1, -1)
        : undefined
    }
    case 'string': {
      for (const child of node.children) {
        if (child === null) return undefined
        if (child.type !== '"' && child.type !== 'string_content') return undefined
      }
      const text = node.text
      if (text.length < 2 || !text.startsWith('"') || !text.endsWith('"')) return undefined
      return decodeDoubleQuoted(text.slice(1, -1))
    }
    case 'concatenation': {
      let value = ''
      for (const child of node.children) {
        if (child === null || !LITERAL_TYPES.has(child.type) || child.type === 'concatenation')
          return undefined
        const part = decodeLiteral(child)
        if (part === undefined) return undefined
        value += part
      }
      return value
    }
    default:
      return undefined
  }
}

function decodeUnquoted(text: string): string {
  let value = ''
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index] as string
    if (char === '\\' && index + 1 < text.length) {
      const next = text[index + 1] as string
      if (next !== '\n') value += next
      index += 1
    } else {
      value += char
    }
  }
  return value
}

function decodeDoubleQuoted(text: string): string {
  let value = ''
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index] as string
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
