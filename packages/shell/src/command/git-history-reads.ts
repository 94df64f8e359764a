import type { PathScope } from '../types/path-scope.js'
import type { PlanIssue } from '../types/plan-issue.js'
import { stringAt } from '../util/item-at.js'
import { programRoles, valueRoles } from './argument-roles.js'
import { commandIssue } from './command-issue.js'
import { hasCommittedDeniedPath } from './git-committed-paths.js'
import {
  type GitPathspec,
  globalPathspecMagic,
  parseGitPathspec,
  pathspecSelects,
} from './git-pathspec.js'
import { findSubcommand } from './global-options.js'

// Flags of log-like subcommands that print file contents (patches) or search them; short
// diff flags cluster (`-pu`, `-sp`), and `-U<n>`, `-W`, `-m` and `--diff-merges` imply a patch.
const PATCH_FLAGS =
  /^(-[a-zA-Z]*[pu][a-zA-Z]*|--patch|--patch-with-stat|--patch-with-raw|--cc|-c|--dd|-m|--diff-merges(?!=(off|none)$).*|--remerge-diff|-U.*|--unified.*|-W|--function-context|--full-diff|--word-diff.*|--color-words.*|--binary|--ext-diff|-L.*|-S.*|-G.*|--pickaxe-regex|--pickaxe-all)$/
// Flags of show and diff that print no contents.
const NO_CONTENT =
  /^(-s|--no-patch|--stat.*|--shortstat|--numstat|--name-only|--name-status|--summary|--dirstat.*|--quiet|--raw)$/
const GLOB = /[*?[]/
const ALWAYS_CONTENT = new Set([
  'grep',
  'archive',
  'bundle',
  'fast-export',
  'format-patch',
  'cat-file',
  'blame',
  'annotate',
  'merge-tree',
  'pack-objects',
])
// Subcommands that print a patch only when asked to (`diff-tree -p`, `request-pull -p`).
const PATCH_ON_REQUEST = new Set([
  'log',
  'whatchanged',
  'reflog',
  'diff-tree',
  'diff-index',
  'diff-files',
  'request-pull',
])

/**
 * Refuses a git command that would print a denied path from the repository's history or
 * index: a pathspec whose magic or pattern names it (`:(top).env`, `:(icase).ENV`, `.en?`,
 * `:(glob).en*`), and — when the repository has committed a denied path — a reader of contents
 * (`log -p`, `show`, `diff`, `grep`, `archive`, …) whose pathspecs select a folder holding it,
 * or the whole tree (no pathspec, `.`, `:/`, only exclusions).
 */
export function checkGitHistoryReads(args: readonly string[], scope: PathScope): PlanIssue[] {
  const root = scope.roots[0]
  if (root === undefined || scope.deny.length === 0) return []
  const position = findSubcommand('git', args)
  if (!('subcommand' in position) || position.subcommand === undefined) return []
  const subcommand = position.subcommand
  const rest = args.slice(position.index + 1)
  const reads = readsContents(subcommand, rest)
  const magic = globalPathspecMagic(args.slice(0, position.index))
  const patterned =
    magic.glob === true ||
    magic.icase === true ||
    rest.some((word) => word.startsWith(':') || GLOB.test(word))
  if (!patterned && (!reads || !hasCommittedDeniedPath(scope))) return []
  const prefix = root === '/' ? '' : root
  const denied = scope.deny
    .filter((path) => path.startsWith(`${prefix}/`))
    .map((path) => path.slice(prefix.length + 1))
  const words = pathspecWords(args, rest)
  const specs = words.map((word) => parseGitPathspec(word, magic))
  const issues: PlanIssue[] = []
  for (const [index, spec] of specs.entries()) {
    if (spec.exclude || spec.pattern === '.') continue
    const word = stringAt(words, index)
    const named = denied.find((path) => namesPath(spec, word, path))
    if (named !== undefined)
      issues.push(
        commandIssue(
          'path_not_allowed',
          `The pathspec ${JSON.stringify(spec.pattern)} selects the denied ${named} (git reads pathspec magic, case and glob patterns).`,
          'Name the files to read by their plain path, outside the denied paths.',
        ),
      )
  }
  if (issues.length > 0 || !reads) return issues
  // Without `--`, a word may be a revision as well as a path: the whole tree counts.
  const separated = rest.includes('--')
  const pathspecs = separated
    ? rest.slice(rest.indexOf('--') + 1).map((word) => parseGitPathspec(word, magic))
    : []
  const included = pathspecs.filter((spec) => !spec.exclude)
  const selected = denied.find((path) =>
    included.length === 0
      ? pathspecs.every((spec) => pathspecSelects(spec, path))
      : included.some((spec) => holds(spec, path)),
  )
  if (selected === undefined || !hasCommittedDeniedPath(scope)) return issues
  issues.push(
    commandIssue(
      'path_not_allowed',
      `git ${subcommand} prints file contents from the repository's history or index, which holds the denied ${selected}.`,
      `Limit the command to the paths you need after -- (git log -p -- src), or read names only (--stat, --name-only); only removing ${prefix}/${selected} from workspace.deny would allow it.`,
    ),
  )
  return issues
}

// Operands and words after `--`: revisions and pathspecs alike, as git cannot be asked here.
function pathspecWords(args: readonly string[], rest: readonly string[]): string[] {
  const roles = programRoles('git')
  const values = valueRoles(roles, args)
  const words: string[] = []
  for (let index = 0; index < rest.length; index += 1) {
    const argument = stringAt(rest, index)
    if (argument === '--') {
      words.push(...rest.slice(index + 1))
      break
    }
    if (!argument.startsWith('-')) words.push(argument)
    else if (!argument.includes('=') && Object.hasOwn(values, argument)) index += 1
  }
  return words.filter((word) => !/^[^:]+:/.test(word) || word.startsWith(':'))
}

/**
 * Whether a git subcommand, with the words after it, prints file contents of the tree, the
 * index or history (`log -p`, `show`, `diff`, `grep`, `archive`, `diff-tree -p`, …).
 */
export function readsContents(subcommand: string, rest: readonly string[]): boolean {
  if (ALWAYS_CONTENT.has(subcommand)) return true
  const patch = rest.some((argument) => PATCH_FLAGS.test(argument))
  if (PATCH_ON_REQUEST.has(subcommand)) return patch
  if (subcommand === 'stash') return rest[0] === 'show' && patch
  // A patch flag prints contents even beside `--stat` or `-s` (`git show --stat -p`).
  if (subcommand === 'show' || subcommand === 'diff' || subcommand === 'range-diff')
    return patch || !rest.some((argument) => NO_CONTENT.test(argument))
  return false
}

// The pathspec names the path (or something inside it) through magic, case or a pattern; a
// plain path is the path check's.
function namesPath(spec: GitPathspec, word: string, path: string): boolean {
  if (!word.startsWith(':') && !spec.icase && !/[*?[]/.test(spec.pattern)) return false
  const fold = (text: string) => (spec.icase ? text.toLowerCase() : text)
  const inside = fold(spec.pattern).startsWith(`${fold(path)}/`)
  return inside || pathspecSelects(spec, path) || pathspecSelects(spec, `${path}/x`)
}

// The pathspec selects a folder that holds the path, or the path itself.
function holds(spec: GitPathspec, path: string): boolean {
  return pathspecSelects(spec, path)
}
