import { trackedDeniedPaths } from '@plan/shell'
import { nodeBuiltin, type PathScope, type PlanIssue } from '@plan/shell/common'

/**
 * False when the scope has no `deny` path or its first root no `.git`: nothing can be tracked,
 * and a compiler that starts neither loads `node:child_process` (milliseconds of a cold start).
 */
function mayTrackDenied(scope: PathScope): boolean {
  const root = scope.roots[0]
  if (scope.deny.length === 0 || root === undefined) return false
  const fs = nodeBuiltin<{ existsSync(path: string): boolean }>('node:fs')
  return fs === undefined || fs.existsSync(`${root === '/' ? '' : root}/.git`)
}

/**
 * One `policy_deny_path_tracked` warning per `deny` path that the workspace repository tracks
 * or has in its history: the policy hides the file, but git prints it to any reader of history
 * (`git show`, `git log -p`), so the command check refuses those readers in this repository.
 */
export function trackedDenyWarnings(scope: PathScope): PlanIssue[] {
  if (!mayTrackDenied(scope)) return []
  return trackedDeniedPaths(scope).map((path) => ({
    code: 'policy_deny_path_tracked',
    message: `The denied path ${path} is tracked by git (in the index or the history): readers of history such as git show HEAD and git log -p would print it, so the command check refuses them unless they are limited to other paths.`,
    path: ['workspace', 'deny', scope.deny.indexOf(path)],
    hint: `Remove it from the repository (git rm --cached, and rewrite the history if it holds a secret), or keep it and expect history readers to be refused.`,
  }))
}
