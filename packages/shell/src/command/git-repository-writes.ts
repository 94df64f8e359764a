import { isWithin } from '../checks/path-scope.js'
import { REPOSITORY_CODE_PATHS } from '../checks/repository-code-paths.js'
import type { PathScope } from '../types/path-scope.js'
import type { PlanIssue } from '../types/plan-issue.js'
import { commandIssue } from './command-issue.js'
import { findSubcommand } from './global-options.js'

// git subcommands that only read the repository: they run with a read-only `.git`.
const READS_REPOSITORY = new Set([
  'status',
  'diff',
  'log',
  'show',
  'blame',
  'annotate',
  'grep',
  'ls-files',
  'ls-tree',
  'ls-remote',
  'cat-file',
  'rev-parse',
  'rev-list',
  'describe',
  'shortlog',
  'whatchanged',
  'check-ignore',
  'range-diff',
  'for-each-ref',
  'show-ref',
  'name-rev',
  'merge-base',
  'count-objects',
  'cherry',
  'verify-commit',
  'verify-tag',
  'archive',
  'format-patch',
  'config',
  'var',
  'version',
  'help',
])

// Subcommands that list without arguments, or with only these listing words and flags.
const LISTS = new Set(['branch', 'tag', 'remote', 'stash', 'worktree', 'reflog'])
const LISTING_WORDS = new Set([
  'list',
  'show',
  '-l',
  '--list',
  '-a',
  '--all',
  '-r',
  '--remotes',
  '-v',
  '-vv',
  '--verbose',
  '--show-current',
])

// Subcommands whose bare form writes (`git stash` pushes): they read only as `list` or `show`.
const LIST_NEEDS_A_WORD = new Set(['stash', 'worktree'])

function readsOnly(subcommand: string, rest: readonly string[]): boolean {
  if (READS_REPOSITORY.has(subcommand)) return true
  if (!LISTS.has(subcommand)) return false
  if (LIST_NEEDS_A_WORD.has(subcommand) && rest[0] !== 'list' && rest[0] !== 'show') return false
  return rest.every((word) => LISTING_WORDS.has(word))
}

/**
 * The repository folders (`<root>/.git`) that the policy makes read-only through a folder that
 * holds them (`readOnly: ['.']`), not through the `.git` entry itself.
 */
function readOnlyRepositories(scope: PathScope): string[] {
  return scope.roots
    .map((root) => `${root === '/' ? '' : root}/.git`)
    .filter((repository) =>
      scope.readOnly.some((entry) => entry !== repository && isWithin(entry, repository)),
    )
}

/**
 * Refuses a git subcommand that writes a code-running part of the repository (see
 * {@link gitCodePartWrite}), and, when the policy makes a repository's `.git` read-only as a
 * whole, one that writes anything else: objects, refs, the index. A read-only `.git` given by
 * the `.git` entry itself (the default `readOnly: ['.git']`) lets git write its own data through
 * git's writing subcommands (`add`, `commit`, `checkout -b`, `tag`, `stash`): the code-running
 * parts stay protected, in the static check and by the sandbox. A read-only folder that holds
 * the whole repository (`readOnly: ['.']`) keeps every write out.
 */
export function checkGitRepositoryWrites(
  args: readonly string[],
  scope: PathScope,
): PlanIssue | undefined {
  const position = findSubcommand('git', args)
  if (!('subcommand' in position) || position.subcommand === undefined) return undefined
  const subcommand = position.subcommand
  const rest = args.slice(position.index + 1)
  if (readsOnly(subcommand, rest)) return undefined
  const codeWrite = gitCodePartWrite(subcommand, rest)
  if (codeWrite !== undefined)
    return commandIssue(
      'path_not_allowed',
      `${codeWrite}, which is a code-running part of the repository (${REPOSITORY_CODE_PATHS.join(', ')}) that the policy protects.`,
      'Commit, branch, tag and stash with git; change remotes, submodules, worktrees and upstreams outside the agent: no policy line lets a command write them.',
    )
  const repositories = readOnlyRepositories(scope)
  if (repositories.length === 0) return undefined
  return commandIssue(
    'path_not_allowed',
    `git ${subcommand} writes the repository, and ${repositories[0]} is read-only in this policy.`,
    `Use git subcommands that only read (status, diff, log, show); to allow commits, make only the repository's .git read-only (workspace.readOnly: [".git"]) instead of ${repositories[0]}'s folder.`,
  )
}
// Subcommands (with their writing words) that write a code-running part of the repository:
// `.git/config` (remotes, submodules, upstreams), `.git/worktrees`, `.git/modules`.
const WRITES_CODE_PARTS: Readonly<Record<string, ReadonlySet<string>>> = {
  remote: new Set(['add', 'rename', 'rm', 'remove', 'set-url', 'set-head', 'set-branches']),
  submodule: new Set([
    'add',
    'init',
    'deinit',
    'sync',
    'update',
    'absorbgitdirs',
    'set-branch',
    'set-url',
  ]),
  worktree: new Set(['add', 'move', 'remove', 'prune', 'repair', 'lock', 'unlock']),
}
const SETS_UPSTREAM = [
  '-u',
  '--set-upstream',
  '--set-upstream-to',
  '--unset-upstream',
  '--track',
  '-t',
]

/**
 * Why a git subcommand would write a code-running part of the repository (`.git/config`,
 * `.git/worktrees`, `.git/modules`), which the policy protects in every repository, or
 * undefined. git's own data (objects, refs, the index) stays writable: commits, branches,
 * tags and stashes are fine.
 */
export function gitCodePartWrite(subcommand: string, rest: readonly string[]): string | undefined {
  const writes = Object.hasOwn(WRITES_CODE_PARTS, subcommand)
    ? WRITES_CODE_PARTS[subcommand]
    : undefined
  const word = rest.find((argument) => !argument.startsWith('-'))
  if (writes !== undefined && word !== undefined && writes.has(word))
    return `git ${subcommand} ${word} writes the repository's configuration or its worktree and submodule folders`
  if (rest.some((argument) => argument.startsWith('--separate-git-dir')))
    return `git ${subcommand} --separate-git-dir turns .git into a file that redirects git to another folder`
  if (
    ['push', 'branch', 'checkout', 'switch'].includes(subcommand) &&
    rest.some((argument) =>
      SETS_UPSTREAM.some((flag) => argument === flag || argument.startsWith(`${flag}=`)),
    )
  )
    return `git ${subcommand} with an upstream option writes the repository's configuration (branch.*.remote)`
  return undefined
}
