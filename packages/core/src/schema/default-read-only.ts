/**
 * The default `workspace.readOnly`: the parts of the root repository's `.git` that make git run
 * code or read another repository (config, hooks, `info/`, object alternates, `commondir`,
 * submodule repositories, linked worktrees), so that `git add`, `git commit`, `git checkout -b`,
 * `git stash` and `git tag` can write the rest of `.git`.
 */
export const DEFAULT_READ_ONLY: readonly string[] = Object.freeze([
  '.git/config',
  '.git/config.worktree',
  '.git/hooks',
  '.git/info',
  '.git/objects/info/alternates',
  '.git/objects/info/http-alternates',
  '.git/commondir',
  '.git/modules',
  '.git/worktrees',
])
