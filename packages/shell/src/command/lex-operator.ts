import type { PlanIssue } from '../types/plan-issue.js'
import { COMMAND_HINTS } from './command-hints.js'

/** An issue found by the strict tokenizer, before it becomes a {@link PlanIssue}. */
export interface LexFinding {
  readonly code: PlanIssue['code']
  readonly message: string
  readonly hint: string
}

const finding = (code: PlanIssue['code'], message: string, hint: string): LexFinding => ({
  code,
  message,
  hint,
})

/** What the tokenizer reports for an unquoted `|` not followed by another. */
export const PIPE = finding(
  'command_pipeline',
  'The command contains a pipe (|).',
  COMMAND_HINTS.pipeline,
)

const BACKTICK = finding(
  'command_substitution',
  'The command contains a backtick command substitution.',
  COMMAND_HINTS.substitution,
)

/** Where an unquoted character stands in the word being read. */
export interface LexPosition {
  /** No word has been read yet: the character is part of the program name. */
  readonly commandPosition: boolean
  /** The character starts a word. */
  readonly wordStart: boolean
  /** The previous unquoted character of the word ('' after a quoted part). */
  readonly previous: string
}

/** What a `$` at `index` starts: always an expansion of some kind. */
export function dollarFinding(command: string, index: number): LexFinding {
  const next = command[index + 1]
  if (next === '(') {
    return command[index + 2] === '('
      ? finding(
          'command_substitution',
          'The command contains an arithmetic expansion $(( )).',
          COMMAND_HINTS.substitution,
        )
      : finding(
          'command_substitution',
          'The command contains a command substitution $( ).',
          COMMAND_HINTS.substitution,
        )
  }
  if (next === "'")
    return finding(
      'command_expansion',
      "The command contains an ANSI-C string $'…'.",
      COMMAND_HINTS.expansion,
    )
  if (next === '"')
    return finding(
      'command_expansion',
      'The command contains a translated string $"…".',
      COMMAND_HINTS.expansion,
    )
  if (next === '{')
    return finding(
      'command_expansion',
      `The command contains a parameter expansion \${…}.`,
      COMMAND_HINTS.expansion,
    )
  return finding(
    'command_expansion',
    'The command contains a $ expansion (a variable such as $HOME or $IFS).',
    COMMAND_HINTS.expansion,
  )
}

/** What a backtick inside double quotes or outside quotes starts. */
export function backtickFinding(): LexFinding {
  return BACKTICK
}

/**
 * The shell feature an unquoted character at `index` starts, if any: operators, redirections,
 * expansions, globs, braces, a leading tilde. `#` is the caller's (it ends the line).
 */
export function operatorFinding(
  command: string,
  index: number,
  position: LexPosition,
): LexFinding | undefined {
  const char = command.charAt(index)
  const next = command[index + 1]
  switch (char) {
    case '$':
      return dollarFinding(command, index)
    case '`':
      return BACKTICK
    case '|':
      return next === '|'
        ? finding('command_list', 'The command chains commands with ||.', COMMAND_HINTS.list)
        : PIPE
    case '&':
      return ampersandFinding(next)
    case ';':
      return finding(
        'command_list',
        'The command contains ;, which separates commands.',
        COMMAND_HINTS.list,
      )
    case '<':
    case '>':
      return redirectionFinding(command, index)
    case '(':
    case ')':
      return finding(
        'command_subshell',
        `The command contains a parenthesis (${char}).`,
        COMMAND_HINTS.subshell,
      )
    default:
      return wordFinding(command, index, position)
  }
}

function ampersandFinding(next: string | undefined): LexFinding {
  if (next === '&')
    return finding('command_list', 'The command chains commands with &&.', COMMAND_HINTS.list)
  if (next === '>')
    return finding(
      'command_redirection',
      'The command redirects output with &>.',
      COMMAND_HINTS.redirection,
    )
  return finding(
    'command_list',
    'The command runs a job in the background with &.',
    COMMAND_HINTS.list,
  )
}

function redirectionFinding(command: string, index: number): LexFinding {
  const char = command.charAt(index)
  const next = command[index + 1]
  if (next === '(')
    return finding(
      'command_substitution',
      `The command contains a process substitution ${char}( ).`,
      COMMAND_HINTS.substitution,
    )
  if (char === '<' && next === '<' && command[index + 2] !== '<')
    return finding(
      'command_heredoc',
      'The command contains a here-document (<<).',
      COMMAND_HINTS.heredoc,
    )
  return finding(
    'command_redirection',
    `The command contains a redirection (${char}).`,
    COMMAND_HINTS.redirection,
  )
}

// Characters that change a word itself: braces, globs, a leading tilde.
function wordFinding(
  command: string,
  index: number,
  position: LexPosition,
): LexFinding | undefined {
  const char = command.charAt(index)
  switch (char) {
    case '{':
      // `{}` (find -exec's placeholder) is never brace-expanded.
      if (command[index + 1] === '}' || revisionBraceEnd(command, index) > index) return undefined
      return braceFinding(char)
    case '}':
      if (command[index - 1] === '{') return undefined
      if (revisionBraceEnd(command, command.lastIndexOf('{', index)) === index) return undefined
      return braceFinding(char)
    case '*':
    case '?':
    case '[':
      return finding(
        'command_glob',
        position.commandPosition
          ? `The program name contains the glob character ${char}.`
          : `An argument contains the unquoted glob character ${char}.`,
        COMMAND_HINTS.glob,
      )
    case '~':
      if (position.wordStart || position.previous === '=' || position.previous === ':')
        return finding(
          'command_tilde',
          'A word starts with ~, which a shell expands to a home folder.',
          COMMAND_HINTS.tilde,
        )
      return undefined
    default:
      return undefined
  }
}

// git's `@{0}`, `@{u}`, `@{-1}`: one brace pair without a comma or `..`, which bash leaves as it is.
const REVISION_BRACE = /^\{-?[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*\}/

// The index of the `}` that closes such a pair opened at `open`, or -1.
function revisionBraceEnd(command: string, open: number): number {
  if (open < 1 || command[open - 1] !== '@') return -1
  const match = REVISION_BRACE.exec(command.slice(open, open + 64))
  return match === null ? -1 : open + match[0].length - 1
}

function braceFinding(char: string): LexFinding {
  return finding(
    'command_brace_expansion',
    `The command contains an unquoted brace (${char}).`,
    COMMAND_HINTS.brace,
  )
}
