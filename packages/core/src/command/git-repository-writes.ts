import { isWithin } from '../checks/path-scope.js'
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
 * The repository folders (`<root>/.git`) that the policy makes read-only as a whole. Protecting
 * only `.git/config` and `.git/hooks` leaves commits possible; protecting `.git` does not.
 */
function readOnlyRepositories(scope: PathScope): string[] {
  return scope.roots
    .map((root) => `${root === '/' ? '' : root}/.git`)
    .filter((repository) => scope.readOnly.some((entry) => isWithin(entry, repository)))
}

/**
 * Refuses a git subcommand that writes the repository (`add`, `commit`, `checkout -b`, `stash`,
 * `fetch` …) when the policy makes the repository's `.git` read-only: the OS sandbox would stop
 * it, so the plan must not be approved with it.
 */
export function checkGitRepositoryWrites(
  args: readonly string[],
  scope: PathScope,
): PlanIssue | undefined {
  const repositories = readOnlyRepositories(scope)
  if (repositories.length === 0) return undefined
  const position = findSubcommand('git', args)
  if (!('subcommand' in position) || position.subcommand === undefined) return undefined
  const subcommand = position.subcommand
  if (readsOnly(subcommand, args.slice(position.index + 1))) return undefined
  return commandIssue(
    'path_not_allowed',
    `git ${subcommand} writes the repository, and ${repositories[0]} is read-only in this policy.`,
    'Use git subcommands that only read (status, diff, log, show), or let the policy protect only .git/config and .git/hooks (workspace.readOnly) so that commits are possible.',
  )
}
