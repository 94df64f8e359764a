import { RULES, type SyntaxAnalysis } from './analyze-syntax-tree.js'
import { commandIssue } from './command-issue.js'
import type { LexedWord } from './lex-command.js'

// Unquoted characters that are literal wherever they stand in a word (`=` and `~` are literal
// only in some places, handled below), as a table by character code.
const PLAIN = new Uint8Array(128)
for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:@%+,-')
  PLAIN[char.charCodeAt(0)] = 1
// The characters of a program name: a word that starts a command.
const NAME = new Uint8Array(128)
for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./-')
  NAME[char.charCodeAt(0)] = 1
const EQUALS = 0x3d
const TILDE = 0x7e
const SPACE = 0x20
const SINGLE_QUOTE = 0x27
const DOUBLE_QUOTE = 0x22
const AMPERSAND = 0x26
const BAR = 0x7c

// Words that the grammar reads as something other than a program name in command position.
const KEYWORDS = new Set([
  'if',
  'then',
  'elif',
  'else',
  'fi',
  'case',
  'esac',
  'for',
  'select',
  'while',
  'until',
  'do',
  'done',
  'in',
  'function',
  'time',
  'coproc',
  'declare',
  'typeset',
  'export',
  'readonly',
  'local',
  'unset',
  'unsetenv',
])

/** Printable ASCII inside "…" without an expansion, an escape or the closing quote. */
function isQuietInDoubleQuotes(code: number): boolean {
  return code >= SPACE && code <= TILDE && code !== DOUBLE_QUOTE && code !== 0x24 && code !== 0x5c
    ? code !== 0x60
    : false
}

/**
 * The grammar's analysis of a command whose Bash parse is trivial, found without the grammar:
 * simple commands joined by ` && ` and ` || `, or by ` | ` (spaces around), of words separated by
 * spaces, each made of unquoted characters that are literal wherever they stand, '…' parts and
 * "…" parts without `$`, backquotes or backslashes, none starting `==` or `=~`; each command's
 * program letters, digits and `_./-` only, not starting with `-` or a digit, and no keyword,
 * after `NAME=value` assignments of such words, if any (reported as the grammar does).
 * The result is the one `analyzeSyntaxTree` gives for such input (a differential test over
 * every corpus and properties over all of Bash's metacharacters and reserved words hold them
 * equal); any other input gives undefined, and is parsed by the grammar.
 */
export function trivialSyntax(command: string): SyntaxAnalysis | undefined {
  const commands: LexedWord[][] = []
  let words: LexedWord[] = []
  let list = false
  let pipeline = false
  let assigned = false
  const length = command.length
  let index = 0
  for (;;) {
    while (index < length && command.charCodeAt(index) === SPACE) index += 1
    if (index >= length) break
    const operator = operatorLength(command, index)
    if (operator > 0) {
      if (words.length === 0) return undefined
      commands.push(words)
      words = []
      if (operator === 1) pipeline = true
      else list = true
      index += operator
      continue
    }
    if (words.length === 0) {
      const assignment = assignmentEnd(command, index)
      if (assignment === -1) return undefined
      if (assignment > 0) {
        assigned = true
        index = assignment
        continue
      }
    }
    const end = words.length === 0 ? programEnd(command, index) : wordEnd(command, index, words)
    if (end === -1) return undefined
    if (words.length === 0) {
      const program = command.slice(index, end)
      if (KEYWORDS.has(program)) return undefined
      words.push({ start: index, end, value: program })
    }
    index = end
  }
  // A mix of the two nests in an order of the grammar's own (a | b | c && d is a pipeline).
  if (words.length === 0 || (list && pipeline)) return undefined
  commands.push(words)
  const values = commands.map((each) => each.map((word) => word.value))
  if (commands.length === 1 && !assigned) return { issues: [], commands: values, simple: words }
  // The walk names the list or pipeline at the root before an assignment in a command below.
  const found = [
    list ? RULES.list : undefined,
    pipeline ? RULES.pipeline : undefined,
    assigned ? RULES.variable_assignment : undefined,
  ].flatMap((rule) =>
    rule === undefined ? [] : [commandIssue(rule.code, rule.message, rule.hint)],
  )
  return { issues: found, commands: values, simple: undefined }
}

/** The length of `&&`, `||` or `|` followed by a space at `index`, else 0. */
function operatorLength(command: string, index: number): number {
  const code = command.charCodeAt(index)
  if (code !== AMPERSAND && code !== BAR) return 0
  const double = command.charCodeAt(index + 1) === code
  if (!double && code === AMPERSAND) return 0
  const length = double ? 2 : 1
  return command.charCodeAt(index + length) === SPACE ? length : 0
}

/**
 * The end of a `NAME=value` word before a command's program (value as an argument word, or
 * empty); 0 when the word is not one, -1 when its value is not a plain word.
 */
function assignmentEnd(command: string, start: number): number {
  let index = start
  for (; index < command.length; index += 1) {
    const code = command.charCodeAt(index)
    const letter = (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f
    if (!letter && (index === start || code < 0x30 || code > 0x39)) break
  }
  if (index === start || command.charCodeAt(index) !== EQUALS) return 0
  // The grammar reads `_=…` (a special parameter's name) as a word.
  if (index === start + 1 && command.charCodeAt(start) === 0x5f) return -1
  const value = index + 1
  if (value >= command.length || command.charCodeAt(value) === SPACE) return value
  return wordEnd(command, value, [])
}

/** The end of a program name of NAME characters from `start`, or -1. */
function programEnd(command: string, start: number): number {
  // A leading `-` or digit can make the grammar read the words after it as an assignment.
  const first = command.charCodeAt(start)
  if (first === 0x2d || (first >= 0x30 && first <= 0x39)) return -1
  let index = start
  while (index < command.length) {
    const code = command.charCodeAt(index)
    if (code === SPACE) break
    if (code >= 128 || NAME[code] !== 1) return -1
    index += 1
  }
  return index
}

/** Reads one argument word from `start` into `words`; returns its end, or -1 when not trivial. */
function wordEnd(command: string, start: number, words: LexedWord[]): number {
  const length = command.length
  // The grammar reads a word starting `==` or `=~` as a test operator.
  if (command.charCodeAt(start) === EQUALS) {
    const second = command.charCodeAt(start + 1)
    if (second === EQUALS || second === TILDE) return -1
  }
  let value = ''
  let index = start
  // Where the current run of unquoted characters began.
  let run = start
  // The previous character, when it was unquoted; -1 at the word's start or after a quote.
  let previous = -1
  while (index < length) {
    const code = command.charCodeAt(index)
    if (code === SPACE) break
    if (code === SINGLE_QUOTE || code === DOUBLE_QUOTE) {
      const close = quotedEnd(command, index, code)
      if (close === -1) return -1
      value += command.slice(run, index) + command.slice(index + 1, close)
      index = close + 1
      run = index
      previous = -1
      continue
    }
    if (code >= 128) return -1
    const tildeIsLiteral = previous !== -1 && previous !== EQUALS && previous !== 0x3a
    if (PLAIN[code] !== 1 && code !== EQUALS && !(code === TILDE && tildeIsLiteral)) return -1
    previous = code
    index += 1
  }
  words.push({ start, end: index, value: value + command.slice(run, index) })
  return index
}

/** The index of the quote that closes the one at `open`, or -1 when its content is not quiet. */
function quotedEnd(command: string, open: number, quote: number): number {
  for (let index = open + 1; index < command.length; index += 1) {
    const code = command.charCodeAt(index)
    if (code === quote) return index
    if (quote === DOUBLE_QUOTE ? !isQuietInDoubleQuotes(code) : code < SPACE || code > TILDE)
      return -1
  }
  return -1
}
