// How each ASCII character may stand in a word of a plain command (0: not at all).
const NONE = 0
const PLAIN = 1
const TILDE = 2
const SINGLE_QUOTE = 3
const DOUBLE_QUOTE = 4

const CLASSES = new Uint8Array(128)
for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=@%+,-')
  CLASSES[char.charCodeAt(0)] = PLAIN
CLASSES['~'.charCodeAt(0)] = TILDE
CLASSES["'".charCodeAt(0)] = SINGLE_QUOTE
CLASSES['"'.charCodeAt(0)] = DOUBLE_QUOTE

// Plain characters the program's name may hold (the grammar reads `a@`, `a%` and `a+:` there
// as syntax, and `=` makes an assignment).
const IN_PROGRAM = new Uint8Array(128)
for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./+-')
  IN_PROGRAM[char.charCodeAt(0)] = 1

// The characters of a variable's name, which starts with a letter (the grammar does not read
// `_=a` as an assignment).
const IN_NAME = new Uint8Array(128)
for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_')
  IN_NAME[char.charCodeAt(0)] = 1
const LETTER = new Uint8Array(128)
for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz')
  LETTER[char.charCodeAt(0)] = 1

const SPACE = 0x20
const EQUALS = '='.charCodeAt(0)
const COLON = ':'.charCodeAt(0)
const APOSTROPHE = "'".charCodeAt(0)
const QUOTE = '"'.charCodeAt(0)

// Inside double quotes: printable ASCII, but for the quote itself and what starts an expansion,
// an escape or a history expansion.
const IN_DOUBLE_QUOTES = new Uint8Array(128)
for (let code = 0x20; code < 0x7f; code += 1) IN_DOUBLE_QUOTES[code] = 1
for (const char of '"$`\\!') IN_DOUBLE_QUOTES[char.charCodeAt(0)] = 0

// Words the grammar may read as syntax (reserved words, declarations, test brackets).
const RESERVED = new Set([
  'if',
  'then',
  'else',
  'elif',
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
const LONGEST_RESERVED = 8

/** Plain commands joined by `&&` and `||`, or by `|`, read without the grammar. */
export interface PlainCommands {
  /** The words of each command, in order. */
  readonly commands: readonly (readonly string[])[]
  /** Whether `&&` joins two of them. */
  readonly and: boolean
  /** Whether `||` joins two of them. */
  readonly or: boolean
  /** Whether `|` joins two of them. */
  readonly pipe: boolean
  /** Whether one `NAME=value` assignment comes before the only command. */
  readonly assignment: boolean
}

/**
 * The words of a command that is only words of plain characters, '…' and "…" without
 * expansions or escapes, separated by spaces; undefined for anything else, which the grammar
 * must read. Every word it gives is one the grammar and the strict tokenizer read alike, with
 * no issue (a property test holds it to that): the program is an unquoted word of letters,
 * digits and `_./+-`, no word is a reserved word or starts with `=` or `~`, and no `~` follows
 * `=` or `:`.
 */
export function plainCommandWords(command: string): readonly string[] | undefined {
  const read = plainCommands(command)
  return read === undefined || read.commands.length !== 1 || read.assignment
    ? undefined
    : read.commands[0]
}

/**
 * Like {@link plainCommandWords}, for one or more such commands joined by `&&` and `||`, or
 * only by `|`, with a space on each side: the commands the grammar finds in it, and the
 * operators that join them. Undefined for anything else.
 */
export function plainCommands(command: string): PlainCommands | undefined {
  const commands: string[][] = []
  let words: string[] = []
  let and = false
  let or = false
  let pipe = false
  let assignment = false
  const length = command.length
  // Without a quote anywhere, each word is its own text.
  const quoted = command.includes("'") || command.includes('"')
  let index = 0
  while (index < length) {
    if (command.charCodeAt(index) === SPACE) {
      index += 1
      continue
    }
    if (!assignment && words.length === 0 && commands.length === 0) {
      const end = assignmentEnd(command, index)
      if (end !== -1) {
        assignment = true
        index = end
        continue
      }
    }
    const operator = operatorLength(command, index)
    if (operator > 0) {
      // Between two commands only, with a space after it.
      if (words.length === 0 || command.charCodeAt(index + operator) !== SPACE) return undefined
      if (operator === 1) pipe = true
      else if (command.charCodeAt(index) === BAR) or = true
      else and = true
      commands.push(words)
      words = []
      index += operator
      continue
    }
    const end = wordEnd(command, index, words.length === 0)
    if (end === -1) return undefined
    const value = quoted ? wordValue(command, index, end) : command.slice(index, end)
    if (value.length <= LONGEST_RESERVED && RESERVED.has(value)) return undefined
    words.push(value)
    index = end
  }
  // The grammar nests `|` and `&&` in an order of its own (`a | b | c && d` is a pipeline).
  if (words.length === 0 || (pipe && (and || or)) || (assignment && commands.length > 0))
    return undefined
  commands.push(words)
  return { commands, and, or, pipe, assignment }
}

// After `NAME=value` at `start` and before the space after it, or -1: the value is one or more
// plain characters other than `=`, and a command follows.
function assignmentEnd(command: string, start: number): number {
  let index = start
  const length = command.length
  while (index < length && IN_NAME[command.charCodeAt(index)] === 1) index += 1
  const name = index - start
  if (name === 0 || LETTER[command.charCodeAt(start)] !== 1 || command.charCodeAt(index) !== EQUALS)
    return -1
  index += 1
  const value = index
  while (index < length) {
    const code = command.charCodeAt(index)
    if (code === SPACE) break
    if (code >= 128 || CLASSES[code] !== PLAIN || code === EQUALS) return -1
    index += 1
  }
  return index > value && index < length ? index : -1
}

const AMPERSAND = '&'.charCodeAt(0)
const BAR = '|'.charCodeAt(0)

// The length of the `&&`, `||` or `|` at `index`, or 0.
function operatorLength(command: string, index: number): number {
  const code = command.charCodeAt(index)
  if (code !== AMPERSAND && code !== BAR) return 0
  if (command.charCodeAt(index + 1) === code) return 2
  return code === BAR ? 1 : 0
}

// Where the word from `start` ends, or -1 when it holds anything but plain characters and
// closed quotes, or starts with `=` (the grammar reads `==` as an operator); the program holds
// only the characters of IN_PROGRAM and tildes.
function wordEnd(command: string, start: number, program: boolean): number {
  const length = command.length
  let index = start
  while (index < length) {
    const code = command.charCodeAt(index)
    if (code === SPACE) return index
    const kind = code < 128 ? (CLASSES[code] ?? NONE) : NONE
    if (kind === PLAIN) {
      if (program ? IN_PROGRAM[code] !== 1 : code === EQUALS && index === start) return -1
      index += 1
    } else if (kind === TILDE) {
      // A tilde is literal only inside a word, after a plain character other than `=` and `:`.
      const previous = index > start ? command.charCodeAt(index - 1) : SPACE
      if (previous === EQUALS || previous === COLON || CLASSES[previous] !== PLAIN) return -1
      index += 1
    } else if (kind === SINGLE_QUOTE && !program) {
      index = singleQuotedEnd(command, index)
      if (index === -1) return -1
    } else if (kind === DOUBLE_QUOTE && !program) {
      index = doubleQuotedEnd(command, index)
      if (index === -1) return -1
    } else return -1
  }
  return index
}

// After the closing quote of '…' opened at `open`, or -1 (not closed, or not printable ASCII).
function singleQuotedEnd(command: string, open: number): number {
  const close = command.indexOf("'", open + 1)
  if (close === -1) return -1
  for (let index = open + 1; index < close; index += 1) {
    const code = command.charCodeAt(index)
    if (code < 0x20 || code > 0x7e) return -1
  }
  return close + 1
}

// After the closing quote of "…" opened at `open`, or -1 (not closed, or holding `$`, a
// backtick, a backslash, `!` or anything but printable ASCII).
function doubleQuotedEnd(command: string, open: number): number {
  const length = command.length
  for (let index = open + 1; index < length; index += 1) {
    const code = command.charCodeAt(index)
    if (code === QUOTE) return index + 1
    if (code >= 128 || IN_DOUBLE_QUOTES[code] !== 1) return -1
  }
  return -1
}

// The word from `start` to `end` without its quotes (wordEnd has checked its shape).
function wordValue(command: string, start: number, end: number): string {
  let value = ''
  let run = start
  let index = start
  while (index < end) {
    const code = command.charCodeAt(index)
    if (code === APOSTROPHE || code === QUOTE) {
      const close = command.indexOf(code === QUOTE ? '"' : "'", index + 1)
      value += command.slice(run, index) + command.slice(index + 1, close)
      index = close + 1
      run = index
    } else index += 1
  }
  return run === start ? command.slice(start, end) : value + command.slice(run, end)
}
