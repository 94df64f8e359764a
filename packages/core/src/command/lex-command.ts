import type { PlanIssue } from '../types/plan-issue.js'
import { COMMAND_HINTS } from './command-hints.js'
import { commandIssue } from './command-issue.js'

/** One word of a command after quote removal, with its span in the source text. */
export interface LexedWord {
  readonly start: number
  readonly end: number
  readonly value: string
}

/** The words of a command, or the shell features that stop it from being plain words. */
export interface LexResult {
  readonly words: readonly LexedWord[]
  readonly issues: readonly PlanIssue[]
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/
const DOUBLE_QUOTE_ESCAPABLE = new Set(['$', '`', '"', '\\'])

/**
 * A strict, independent tokenizer for the literal subset of Bash: unquoted words, '…', "…"
 * without expansions, and backslash escapes. Anything else is reported, never interpreted.
 * The checker only accepts a command when this tokenizer and the tree-sitter grammar agree.
 */
export function lexCommand(command: string): LexResult {
  const words: LexedWord[] = []
  const issues: PlanIssue[] = []
  const seen = new Set<string>()
  const report = (code: PlanIssue['code'], message: string, hint: string) => {
    // One issue per feature: the grammar's walk already names every place.
    if (seen.has(code)) return
    seen.add(code)
    issues.push(commandIssue(code, message, hint))
  }
  let start = -1
  let value = ''
  let raw = ''
  // The previous unquoted character of the current word ('' after a quoted part).
  let previous = ''
  const begin = (index: number) => {
    if (start === -1) start = index
  }
  const finish = (end: number) => {
    if (start === -1) return
    if (words.length === 0 && ASSIGNMENT.test(raw)) {
      report(
        'command_assignment',
        `The command starts with the assignment ${JSON.stringify(raw)}.`,
        COMMAND_HINTS.assignment,
      )
    }
    words.push({ start, end, value })
    start = -1
    value = ''
    raw = ''
    previous = ''
  }
  const length = command.length
  let index = 0
  while (index < length) {
    const char = command[index] as string
    const next = command[index + 1]
    if (char === ' ' || char === '\t') {
      finish(index)
      index += 1
      continue
    }
    if (char === '\n') {
      finish(index)
      report(
        'command_list',
        'The command contains a newline, which separates commands.',
        COMMAND_HINTS.list,
      )
      index += 1
      continue
    }
    if (char === '\\') {
      if (next === '\n') {
        // A line continuation is removed before words are split.
        index += 2
        continue
      }
      if (next === undefined) {
        report(
          'command_parse_error',
          'The command ends with a lone backslash.',
          COMMAND_HINTS.parse,
        )
        index += 1
        continue
      }
      begin(index)
      value += next
      raw += char + next
      previous = ''
      index += 2
      continue
    }
    if (char === "'") {
      begin(index)
      const close = command.indexOf("'", index + 1)
      if (close === -1) {
        report('command_parse_error', 'A single quote is not closed.', COMMAND_HINTS.parse)
        raw += command.slice(index)
        index = length
        continue
      }
      value += command.slice(index + 1, close)
      raw += command.slice(index, close + 1)
      previous = ''
      index = close + 1
      continue
    }
    if (char === '"') {
      begin(index)
      let cursor = index + 1
      let closed = false
      while (cursor < length) {
        const inner = command[cursor] as string
        if (inner === '"') {
          closed = true
          break
        }
        if (inner === '\\') {
          const escaped = command[cursor + 1]
          if (escaped === '\n') {
            cursor += 2
            continue
          }
          if (escaped !== undefined && DOUBLE_QUOTE_ESCAPABLE.has(escaped)) {
            value += escaped
            cursor += 2
            continue
          }
          value += inner
          cursor += 1
          continue
        }
        if (inner === '$') reportDollar(command, cursor, report)
        else if (inner === '`') {
          report(
            'command_substitution',
            'The command contains a backtick command substitution.',
            COMMAND_HINTS.substitution,
          )
        }
        value += inner
        cursor += 1
      }
      if (!closed) {
        report('command_parse_error', 'A double quote is not closed.', COMMAND_HINTS.parse)
        raw += command.slice(index)
        index = length
        continue
      }
      raw += command.slice(index, cursor + 1)
      previous = ''
      index = cursor + 1
      continue
    }
    const commandPosition = words.length === 0
    switch (char) {
      case '$':
        reportDollar(command, index, report)
        break
      case '`':
        report(
          'command_substitution',
          'The command contains a backtick command substitution.',
          COMMAND_HINTS.substitution,
        )
        break
      case '|':
        if (next === '|')
          report('command_list', 'The command chains commands with ||.', COMMAND_HINTS.list)
        else report('command_pipeline', 'The command contains a pipe (|).', COMMAND_HINTS.pipeline)
        break
      case '&':
        if (next === '&')
          report('command_list', 'The command chains commands with &&.', COMMAND_HINTS.list)
        else if (next === '>')
          report(
            'command_redirection',
            'The command redirects output with &>.',
            COMMAND_HINTS.redirection,
          )
        else
          report(
            'command_list',
            'The command runs a job in the background with &.',
            COMMAND_HINTS.list,
          )
        break
      case ';':
        report(
          'command_list',
          'The command contains ;, which separates commands.',
          COMMAND_HINTS.list,
        )
        break
      case '<':
      case '>':
        if (next === '(') {
          report(
            'command_substitution',
            `The command contains a process substitution ${char}( ).`,
            COMMAND_HINTS.substitution,
          )
        } else if (char === '<' && next === '<' && command[index + 2] !== '<') {
          report(
            'command_heredoc',
            'The command contains a here-document (<<).',
            COMMAND_HINTS.heredoc,
          )
        } else {
          report(
            'command_redirection',
            `The command contains a redirection (${char}).`,
            COMMAND_HINTS.redirection,
          )
        }
        break
      case '(':
      case ')':
        report(
          'command_subshell',
          `The command contains a parenthesis (${char}).`,
          COMMAND_HINTS.subshell,
        )
        break
      case '{':
        // `{}` (find -exec's placeholder) is never brace-expanded.
        if (next === '}') break
        report(
          'command_brace_expansion',
          `The command contains an unquoted brace (${char}).`,
          COMMAND_HINTS.brace,
        )
        break
      case '}':
        if (command[index - 1] === '{') break
        report(
          'command_brace_expansion',
          `The command contains an unquoted brace (${char}).`,
          COMMAND_HINTS.brace,
        )
        break
      case '*':
      case '?':
      case '[':
        report(
          'command_glob',
          commandPosition
            ? `The program name contains the glob character ${char}.`
            : `An argument contains the unquoted glob character ${char}.`,
          COMMAND_HINTS.glob,
        )
        break
      case '~':
        if (start === -1 || previous === '=' || previous === ':') {
          report(
            'command_tilde',
            'A word starts with ~, which a shell expands to a home folder.',
            COMMAND_HINTS.tilde,
          )
        }
        break
      case '#':
        if (start === -1) {
          report('command_invalid', 'The command contains a # comment.', COMMAND_HINTS.comment)
          // The rest of the line is the comment.
          const newline = command.indexOf('\n', index)
          index = newline === -1 ? length : newline
          continue
        }
        break
      default:
        break
    }
    begin(index)
    value += char
    raw += char
    previous = char
    index += 1
  }
  finish(length)
  return { words, issues }
}

type Report = (code: PlanIssue['code'], message: string, hint: string) => void

function reportDollar(command: string, index: number, report: Report): void {
  const next = command[index + 1]
  if (next === '(') {
    if (command[index + 2] === '(') {
      report(
        'command_substitution',
        'The command contains an arithmetic expansion $(( )).',
        COMMAND_HINTS.substitution,
      )
    } else {
      report(
        'command_substitution',
        'The command contains a command substitution $( ).',
        COMMAND_HINTS.substitution,
      )
    }
  } else if (next === "'") {
    report(
      'command_expansion',
      "The command contains an ANSI-C string $'…'.",
      COMMAND_HINTS.expansion,
    )
  } else if (next === '"') {
    report(
      'command_expansion',
      'The command contains a translated string $"…".',
      COMMAND_HINTS.expansion,
    )
  } else if (next === '{') {
    report(
      'command_expansion',
      `The command contains a parameter expansion \${…}.`,
      COMMAND_HINTS.expansion,
    )
  } else {
    report(
      'command_expansion',
      'The command contains a $ expansion (a variable such as $HOME or $IFS).',
      COMMAND_HINTS.expansion,
    )
  }
}
