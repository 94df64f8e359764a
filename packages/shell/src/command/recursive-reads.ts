import { isWithin, resolvePath } from '../checks/path-scope.js'
import type { PathScope } from '../types/path-scope.js'
import type { PlanIssue } from '../types/plan-issue.js'
import { stringAt } from '../util/item-at.js'
import { programRoles, valueRoles } from './argument-roles.js'
import { commandIssue } from './command-issue.js'
import { findSubcommand } from './global-options.js'

/** How one program reads a whole tree: when it does, and which operands are the trees. */
interface TreeReader {
  /** True when this argument list reads its sources recursively. */
  readonly recursive: (args: readonly string[]) => boolean
  /** The tree operands, from all operands (the first may be a pattern, the last a target). */
  readonly sources: (operands: readonly string[], args: readonly string[]) => readonly string[]
  /** Whether it skips hidden files unless told otherwise (ripgrep). */
  readonly skipsHidden?: (args: readonly string[]) => boolean
}

// A matcher of short-option clusters holding one of the letters, or of the long flags.
function flagMatcher(
  long: readonly string[],
  letters: string,
): (args: readonly string[]) => boolean {
  const short = letters.length === 0 ? undefined : new RegExp(`^-[A-Za-z]*[${letters}]`)
  return (args) =>
    args.some(
      (argument) =>
        (short !== undefined && !argument.startsWith('--') && short.test(argument)) ||
        long.some(
          (flag) =>
            argument.startsWith(flag) &&
            (argument.length === flag.length || argument.startsWith('=', flag.length)),
        ),
    )
}

const patternGiven = (args: readonly string[]) =>
  args.some((argument) => /^-[A-Za-z]*[ef]|^--(regexp|file)/.test(argument))
const afterPattern = (operands: readonly string[], args: readonly string[]) => {
  const rest = patternGiven(args) ? operands : operands.slice(1)
  return rest.length === 0 ? ['.'] : rest
}
const allButLast = (operands: readonly string[], args: readonly string[]) =>
  args.some((argument) => /^-[A-Za-z]*t|^--target-directory/.test(argument))
    ? operands
    : operands.slice(0, -1)

const grepRecursive = flagMatcher(['--recursive', '--dereference-recursive', '--directories'], 'rR')
const GREP: TreeReader = {
  recursive: (args) => grepRecursive(args) || args.includes('recurse'),
  sources: afterPattern,
}
const showsHidden = flagMatcher(
  ['--hidden', '--no-ignore', '--unrestricted', '--no-ignore-dot'],
  'u.',
)
const RIPGREP: TreeReader = {
  recursive: (args) => !args.includes('--files'),
  sources: afterPattern,
  skipsHidden: (args) => !showsHidden(args),
}
const tarCreates = flagMatcher(['--create', '--append', '--update'], 'cru')
const READERS: Readonly<Record<string, TreeReader>> = {
  grep: GREP,
  egrep: GREP,
  fgrep: GREP,
  rg: RIPGREP,
  ag: RIPGREP,
  ack: RIPGREP,
  diff: {
    recursive: flagMatcher(['--recursive'], 'r'),
    sources: (operands) => operands,
  },
  cp: {
    recursive: flagMatcher(['--recursive', '--archive'], 'rRa'),
    sources: allButLast,
  },
  rsync: {
    recursive: flagMatcher(['--recursive', '--archive'], 'ra'),
    sources: allButLast,
  },
  scp: { recursive: flagMatcher([], 'r'), sources: allButLast },
  zip: {
    recursive: flagMatcher(['--recurse-paths'], 'rR'),
    sources: (operands) => operands.slice(1),
  },
  tar: {
    recursive: (args) => /^[A-Za-z]*[cru]/.test(args[0] ?? '') || tarCreates(args),
    sources: (operands, args) => (/^[A-Za-z]+$/.test(args[0] ?? '') ? operands.slice(1) : operands),
  },
  gzip: {
    recursive: flagMatcher(['--recursive'], 'r'),
    sources: (operands) => operands,
  },
}
const ALIASES: Readonly<Record<string, string>> = { gtar: 'tar', bsdtar: 'tar', gunzip: 'gzip' }

// git grep reads the work tree, untracked files included, with these.
const GIT_GREP_TREE = ['--untracked', '--no-index', '--no-exclude-standard']

/**
 * Refuses a command that reads a whole tree holding a denied path: recursive search
 * (`grep -r x .`, `rg -uuu x`, `git grep --untracked`), archivers and copiers of a folder
 * (`tar -czf out.tgz .`, `zip -r`, `cp -r . dst`, `rsync -a . dst`), `diff -r`. The operand is
 * allowed; what the program reads under it is not. ripgrep skips hidden files by default, so
 * without `-u`/`--hidden` a hidden denied path (`.env`) does not count.
 */
export function checkRecursiveReads(
  name: string,
  args: readonly string[],
  scope: PathScope,
): PlanIssue[] {
  if (scope.deny.length === 0) return []
  const tree = treeSources(name, args)
  if (tree === undefined) return []
  const issues: PlanIssue[] = []
  for (const source of tree.sources) {
    const resolved = resolvePath(source, scope, 'read')
    if (typeof resolved !== 'string') continue // the path check refuses it
    const held = scope.deny.find(
      (denied) =>
        denied !== resolved &&
        isWithin(resolved, denied) &&
        !(tree.skipsHidden && isHiddenBelow(resolved, denied)),
    )
    if (held === undefined) continue
    issues.push(
      commandIssue(
        'path_not_allowed',
        `${name} reads every file under ${JSON.stringify(source)} (${resolved}), which holds the denied ${held}.`,
        `Name the folders to read, not one that holds a denied path (e.g. ${name} … src).`,
      ),
    )
  }
  return issues
}

function treeSources(
  name: string,
  args: readonly string[],
): { sources: readonly string[]; skipsHidden: boolean } | undefined {
  if (name === 'git') {
    if (!args.some((argument) => GIT_GREP_TREE.includes(argument))) return undefined
    const position = findSubcommand('git', args)
    if (!('subcommand' in position) || position.subcommand !== 'grep') return undefined
    const rest = args.slice(position.index + 1)
    if (!rest.some((argument) => GIT_GREP_TREE.includes(argument))) return undefined
    const end = rest.indexOf('--')
    const paths = end === -1 ? afterPattern(operandsOf('git', rest), rest) : rest.slice(end + 1)
    return { sources: paths.length === 0 ? ['.'] : paths, skipsHidden: false }
  }
  const key = (Object.hasOwn(ALIASES, name) ? ALIASES[name] : undefined) ?? name
  const reader = Object.hasOwn(READERS, key) ? READERS[key] : undefined
  if (reader === undefined || !reader.recursive(args)) return undefined
  const operands = operandsOf(key, args)
  return {
    sources: reader.sources(operands, args),
    skipsHidden: reader.skipsHidden?.(args) ?? false,
  }
}

// The operands of an argument list: words that are not options or the values of known ones.
function operandsOf(name: string, args: readonly string[]): string[] {
  const roles = programRoles(name)
  const values = valueRoles(roles, args)
  const operands: string[] = []
  for (let index = 0; index < args.length; index += 1) {
    const argument = stringAt(args, index)
    if (argument === '--') {
      operands.push(...args.slice(index + 1))
      break
    }
    if (!argument.startsWith('-') || argument === '-') {
      operands.push(argument)
      continue
    }
    if (argument.includes('=')) continue
    if (Object.hasOwn(values, argument)) index += 1
    else if (!argument.startsWith('--') && Object.hasOwn(values, `-${argument.at(-1)}`)) index += 1
  }
  return operands
}

function isHiddenBelow(folder: string, path: string): boolean {
  return path
    .slice(folder === '/' ? 1 : folder.length + 1)
    .split('/')
    .some((segment) => segment.startsWith('.'))
}
