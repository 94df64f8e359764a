import type { PlanIssue } from '../types/plan-issue.js'
import { COMMAND_HINTS } from './command-hints.js'
import { commandIssue } from './command-issue.js'
import { backtickFinding, dollarFinding, type LexFinding, operatorFinding } from './lex-operator.js'

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
// Unquoted characters that may start a shell feature (see operatorFinding), and `#`.
const SPECIAL = new Set(['$', '`', '|', '&', ';', '<', '>', '(', ')', '{', '}', '*', '?', '[', '~'])
// Characters the main loop must see one by one: blanks, quotes, escapes and SPECIAL ones.
const ENDS_PLAIN_RUN = [...SPECIAL, ' ', '\t', '\n', '\\', "'", '"']
const asClass = (chars: readonly string[]) =>
  chars.map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')
// The end of a run from `lastIndex`: unquoted, at a character of ENDS_PLAIN_RUN; in double
// quotes, at the closing quote, an escape or the start of an expansion. A sticky regular
// expression finds it much faster than a charCodeAt loop over a long word.
const PLAIN_RUN = new RegExp(`[^${asClass(ENDS_PLAIN_RUN)}]*`, 'y')
const QUOTED_RUN = new RegExp(`[^${asClass(['"', '\\', '$', '`'])}]*`, 'y')

function runEnd(run: RegExp, from: number, command: string): number {
  run.lastIndex = from
  run.test(command)
  return run.lastIndex
}

/**
 * A strict, independent tokenizer for the literal subset of Bash: unquoted words, '…', "…"
 * without expansions, and backslash escapes. Anything else is reported, never interpreted.
 * The checker only accepts a command when this tokenizer and the tree-sitter grammar agree.
 */
export function lexCommand(command: string): LexResult {
  return new CommandLexer(command).run()
}

/** The tokenizer's state while it reads one command: the word being read and what was found. */
class CommandLexer {
  readonly #command: string
  readonly #words: LexedWord[] = []
  readonly #issues: PlanIssue[] = []
  readonly #seen = new Set<string>()
  #start = -1
  #value = ''
  #raw = ''
  // The previous unquoted character of the current word ('' after a quoted part).
  #previous = ''

  constructor(command: string) {
    this.#command = command
  }

  run(): LexResult {
    const command = this.#command
    const length = command.length
    let index = 0
    while (index < length) {
      const char = command.charAt(index)
      if (char === ' ' || char === '\t') {
        this.#finish(index)
        index += 1
      } else if (char === '\n') {
        this.#finish(index)
        this.#report(
          'command_list',
          'The command contains a newline, which separates commands.',
          COMMAND_HINTS.list,
        )
        index += 1
      } else if (char === '\\') index = this.#backslash(index)
      else if (char === "'") index = this.#singleQuoted(index)
      else if (char === '"') index = this.#doubleQuoted(index)
      else if (char === '#' && this.#start === -1) index = this.#comment(index)
      else index = this.#unquoted(index)
    }
    this.#finish(length)
    return { words: this.#words, issues: this.#issues }
  }

  // One issue per feature: the grammar's walk already names every place.
  #report(code: PlanIssue['code'], message: string, hint: string): void {
    if (this.#seen.has(code)) return
    this.#seen.add(code)
    this.#issues.push(commandIssue(code, message, hint))
  }

  #found(found: LexFinding | undefined): void {
    if (found !== undefined) this.#report(found.code, found.message, found.hint)
  }

  #begin(index: number): void {
    if (this.#start === -1) this.#start = index
  }

  #finish(end: number): void {
    if (this.#start === -1) return
    if (this.#words.length === 0 && ASSIGNMENT.test(this.#raw)) {
      this.#report(
        'command_assignment',
        `The command starts with the assignment ${JSON.stringify(this.#raw)}.`,
        COMMAND_HINTS.assignment,
      )
    }
    this.#words.push({ start: this.#start, end, value: this.#value })
    this.#start = -1
    this.#value = ''
    this.#raw = ''
    this.#previous = ''
  }

  #backslash(index: number): number {
    const next = this.#command[index + 1]
    // A line continuation is removed before words are split.
    if (next === '\n') return index + 2
    if (next === undefined) {
      this.#report(
        'command_parse_error',
        'The command ends with a lone backslash.',
        COMMAND_HINTS.parse,
      )
      return index + 1
    }
    this.#begin(index)
    this.#value += next
    this.#raw += `\\${next}`
    this.#previous = ''
    return index + 2
  }

  #singleQuoted(index: number): number {
    const command = this.#command
    this.#begin(index)
    const close = command.indexOf("'", index + 1)
    if (close === -1) {
      this.#report('command_parse_error', 'A single quote is not closed.', COMMAND_HINTS.parse)
      this.#raw += command.slice(index)
      return command.length
    }
    this.#value += command.slice(index + 1, close)
    this.#raw += command.slice(index, close + 1)
    this.#previous = ''
    return close + 1
  }

  #doubleQuoted(index: number): number {
    const command = this.#command
    const length = command.length
    this.#begin(index)
    let cursor = index + 1
    while (cursor < length && command[cursor] !== '"') {
      const inner = command.charAt(cursor)
      if (inner === '\\') {
        const escaped = command[cursor + 1]
        if (escaped === '\n') cursor += 2
        else if (escaped !== undefined && DOUBLE_QUOTE_ESCAPABLE.has(escaped)) {
          this.#value += escaped
          cursor += 2
        } else {
          this.#value += inner
          cursor += 1
        }
        continue
      }
      if (inner === '$') this.#found(dollarFinding(command, cursor))
      else if (inner === '`') this.#found(backtickFinding())
      // A run of characters that end nothing inside the quotes is taken in one slice.
      const end = runEnd(QUOTED_RUN, cursor + 1, command)
      this.#value += command.slice(cursor, end)
      cursor = end
    }
    if (cursor >= length) {
      this.#report('command_parse_error', 'A double quote is not closed.', COMMAND_HINTS.parse)
      this.#raw += command.slice(index)
      return length
    }
    this.#raw += command.slice(index, cursor + 1)
    this.#previous = ''
    return cursor + 1
  }

  // The rest of the line is the comment.
  #comment(index: number): number {
    this.#report('command_invalid', 'The command contains a # comment.', COMMAND_HINTS.comment)
    const newline = this.#command.indexOf('\n', index)
    return newline === -1 ? this.#command.length : newline
  }

  #unquoted(index: number): number {
    const command = this.#command
    const char = command.charAt(index)
    if (SPECIAL.has(char)) {
      this.#found(
        operatorFinding(command, index, {
          commandPosition: this.#words.length === 0,
          wordStart: this.#start === -1,
          previous: this.#previous,
        }),
      )
    }
    this.#begin(index)
    // A run of plain characters is taken in one slice.
    const end = runEnd(PLAIN_RUN, index + 1, command)
    const run = command.slice(index, end)
    this.#value += run
    this.#raw += run
    this.#previous = command.charAt(end - 1)
    return end
  }
}
