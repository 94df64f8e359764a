import { posix } from '../util/posix-path.js'
import { readsContents } from './git-history-reads.js'
import { findSubcommand } from './global-options.js'

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
const RECURSIVE_SHORT = /^-[a-zA-Z]*[rR]/u
const RECURSIVE_LONG = ['--recursive', '--dereference-recursive', '--directories=recurse']
const ARCHIVE_FLAGS = /^(-[a-zA-Z]*a[a-zA-Z]*)$/u
/** git subcommands that print file contents or names and change nothing. */
const GIT_PRINTERS = new Set([
  'grep',
  'log',
  'show',
  'diff',
  'blame',
  'archive',
  'cat-file',
  'status',
  'ls-files',
  'rev-parse',
  'branch',
])

// A long flag or a unique abbreviation getopt accepts (`--recur` for `--recursive`).
function abbreviates(word: string, flags: readonly string[]): boolean {
  const equals = word.indexOf('=')
  const name = equals === -1 ? word : word.slice(0, equals)
  return flags.some(
    (flag) => word === flag || (name.length > 3 && !flag.includes('=') && flag.startsWith(name)),
  )
}

function recursive(program: string, rest: readonly string[]): boolean {
  return (
    TREE_READERS.has(program) ||
    rest.some(
      (word, index) =>
        (!word.startsWith('--') && RECURSIVE_SHORT.test(word)) ||
        abbreviates(word, RECURSIVE_LONG) ||
        (word === '-d' && rest[index + 1] === 'recurse'),
    ) ||
    (program === 'cp' &&
      rest.some((word) => ARCHIVE_FLAGS.test(word) || abbreviates(word, ['--archive'])))
  )
}

// A file a value names: `@file` (curl -d @.env) and `name=@file` (curl -F f=@.env) included.
function named(word: string): string[] {
  const at = word.lastIndexOf('@')
  return at === -1 ? [word] : [word, word.slice(at + 1)]
}

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
    if (!word.startsWith('-')) operands.push(...named(word))
    else if (word.includes('=')) operands.push(...named(word.slice(word.indexOf('=') + 1)))
  }
  if (program === 'git') {
    const position = findSubcommand('git', rest)
    const found = 'subcommand' in position ? position : undefined
    const sub = found?.subcommand
    // Unknown global options fail closed: the command may read any content.
    const reader =
      found === undefined || (sub !== undefined && readsContents(sub, rest.slice(found.index + 1)))
    return {
      operands: sub === undefined ? operands : operands.slice(1),
      trees: reader ? ['.'] : [],
      readOnly: sub !== undefined && GIT_PRINTERS.has(sub) && !rest.includes('--output'),
    }
  }
  if (NAMES_ONLY.has(program)) return { operands: [], trees: [], readOnly: true }
  const folders = operands.length === 0 ? ['.'] : operands
  return {
    operands,
    trees: recursive(program, rest) ? folders : [],
    readOnly: PRINTERS.has(program) && !rest.some((word) => /^(-o|--output)/u.test(word)),
  }
}
