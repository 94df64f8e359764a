import { isWithin, resolvePath } from '../checks/path-scope.js'
import {
  type DiskView,
  GIT_DIRECTORY_NAME,
  looksLikeGitDirectory,
} from '../checks/repository-code-paths.js'
import type { PathScope } from '../types/path-scope.js'
import type { PlanIssue } from '../types/plan-issue.js'
import { stringAt } from '../util/item-at.js'
import { posix } from '../util/posix-path.js'
import { commandIssue } from './command-issue.js'
import { findSubcommand } from './global-options.js'

const HINT =
  'Run git in the workspace repository itself (git status, git -C . log); another repository is one whose configuration the agent may have written.'

/**
 * Refuses a git command pointed at a repository other than a workspace root's own: `--git-dir`
 * or `--work-tree` anywhere but a root's, `--bare`, or `-C` into a folder that is, or lies in,
 * a nested repository (a `.git` folder or redirect file below the root) or a bare repository.
 * git would read that repository's `config` and run its `core.fsmonitor`, `core.pager` or hooks.
 * With no disk to look at, `-C` may name only a root.
 */
export function checkGitRepositorySelection(
  args: readonly string[],
  scope: PathScope,
  disk: DiskView | undefined,
): PlanIssue | undefined {
  const position = findSubcommand('git', args)
  const end = 'index' in position ? position.index : args.length
  let folder = scope.roots[0] ?? '/'
  for (let index = 0; index < end; index += 1) {
    const argument = stringAt(args, index)
    const [option, inline] = splitOption(argument)
    if (option === '--bare')
      return refuse('git --bare treats the current folder as a bare repository.')
    if (option !== '-C' && option !== '--git-dir' && option !== '--work-tree') continue
    const value = inline ?? args[index + 1] ?? ''
    if (inline === undefined) index += 1
    const target = posix.resolve(folder, value)
    if (option === '-C') {
      folder = target
      continue
    }
    const expected = option === '--git-dir' ? `/${GIT_DIRECTORY_NAME}` : ''
    if (!scope.roots.some((root) => target === `${root === '/' ? '' : root}${expected}`))
      return refuse(
        `git ${option} ${value} points git at ${target}, which is not a workspace root's ${option === '--git-dir' ? '.git' : 'work tree'}.`,
      )
  }
  return nestedRepository(folder, scope, disk)
}

function nestedRepository(
  folder: string,
  scope: PathScope,
  disk: DiskView | undefined,
): PlanIssue | undefined {
  if (scope.roots.includes(folder)) return undefined
  const root = scope.roots.find((entry) => isWithin(entry, folder))
  // Outside every root: the path check refuses it.
  if (root === undefined || typeof resolvePath(folder, scope) !== 'string') return undefined
  if (disk === undefined)
    return refuse(
      `git -C ${folder} runs git in a folder below the root, and without the disk the checker cannot tell whether it holds another repository.`,
    )
  for (let current = folder; current !== root; current = posix.dirname(current)) {
    const base = current.slice(current.lastIndexOf('/') + 1)
    if (
      base === GIT_DIRECTORY_NAME ||
      disk.exists(`${current}/${GIT_DIRECTORY_NAME}`) ||
      looksLikeGitDirectory(current, disk)
    )
      return refuse(
        `git -C ${folder} runs git in ${current}, which is another repository (or its git directory) inside the workspace.`,
      )
  }
  return undefined
}

function splitOption(argument: string): [string, string | undefined] {
  if (argument.startsWith('--')) {
    const equals = argument.indexOf('=')
    return equals === -1
      ? [argument, undefined]
      : [argument.slice(0, equals), argument.slice(equals + 1)]
  }
  if (argument.startsWith('-C') && argument.length > 2) return ['-C', argument.slice(2)]
  return [argument, undefined]
}

function refuse(message: string): PlanIssue {
  return commandIssue('path_not_allowed', message, HINT)
}
