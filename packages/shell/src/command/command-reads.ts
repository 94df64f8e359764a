import { posix } from '../util/posix-path.js'

/** What a command reads of the workspace, as far as rule-of-two bookkeeping needs to know. */
export interface CommandReads {
  /** Operands that name files or folders (relative words as written, `=` values included). */
  readonly operands: readonly string[]
  /** Folders it reads every file beneath (a recursive reader; `.` when it names none). */
  readonly trees: readonly string[]
  /** The command only prints what it reads: it writes nothing and reaches nothing. */
  readonly readOnly: boolean
}

/** Programs that read what they are given and only print. */
const PRINTERS = new Set([
  'cat',
  'head',
  'tail',
  'less',
  'more',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'ag',
  'ack',
  'ls',
  'wc',
  'base64',
  'base32',
  'xxd',
  'od',
  'hexdump',
  'strings',
  'file',
  'stat',
  'tree',
  'du',
  'diff',
  'cmp',
  'sha256sum',
  'md5sum',
  'nl',
  'sort',
  'uniq',
  'cut',
  'jq',
])
/** Programs that read a whole folder they are given (or the current one) by default. */
const TREE_READERS = new Set(['rg', 'ag', 'ack', 'tar', 'zip', 'rsync'])
/** Programs that print names and metadata, never contents. */
const NAMES_ONLY = new Set(['ls', 'tree', 'du', 'stat', 'file', 'wc'])
const RECURSIVE_FLAGS = /^(-[a-zA-Z]*[rR][a-zA-Z]*|--recursive|--dereference-recursive)$/u
const ARCHIVE_FLAGS = /^(-[a-zA-Z]*a[a-zA-Z]*|--archive)$/u
/** git subcommands that print file contents (of the tree or of history) and change nothing. */
const GIT_READERS = new Set(['grep', 'log', 'show', 'diff', 'blame', 'archive', 'cat-file'])
const GIT_PRINTERS = new Set([...GIT_READERS, 'status', 'ls-files', 'rev-parse', 'branch'])

/**
 * What a command's argv reads: its operands, the folders it reads recursively (`grep -r`,
 * `rg`, `tar -c`, `cp -r`, `git grep`), and whether it only prints. A word that is not an
 * option counts as an operand (a pattern too: over-counting a read is the safe side).
 */
export function commandReads(argv: readonly string[]): CommandReads {
  const program =
    posix
      .normalize(argv[0] ?? '')
      .split('/')
      .pop() ?? ''
  const rest = argv.slice(1)
  const operands: string[] = []
  for (const word of rest) {
    if (!word.startsWith('-')) operands.push(word)
    else if (word.includes('=')) operands.push(word.slice(word.indexOf('=') + 1))
  }
  if (program === 'git') {
    const sub = rest.find((word) => !word.startsWith('-'))
    // `git log` prints contents only as patches.
    const reader =
      sub !== undefined &&
      GIT_READERS.has(sub) &&
      (sub !== 'log' || rest.some((word) => /^(-p|-u|--patch.*|-L.*|--full-diff)$/u.test(word)))
    return {
      operands: operands.slice(1),
      trees: reader ? ['.'] : [],
      readOnly: sub !== undefined && GIT_PRINTERS.has(sub) && !rest.includes('--output'),
    }
  }
  if (NAMES_ONLY.has(program)) return { operands: [], trees: [], readOnly: true }
  const recursive =
    TREE_READERS.has(program) ||
    rest.some((word) => RECURSIVE_FLAGS.test(word)) ||
    (program === 'cp' && rest.some((word) => ARCHIVE_FLAGS.test(word)))
  const folders = operands.length === 0 ? ['.'] : operands
  return {
    operands,
    trees: recursive ? folders : [],
    readOnly: PRINTERS.has(program) && !rest.some((word) => /^(-o|--output)/u.test(word)),
  }
}
