/**
 * The parts of a git directory that make git run code or read another repository, relative to
 * the git directory (`.git`, or a bare repository's folder): its config files (`core.fsmonitor`,
 * `core.hooksPath`, filters, aliases), hooks, `info/` (attributes, grafts, sparse checkout),
 * object alternates, `commondir`, submodule repositories and linked worktrees' configs. The
 * sandbox keeps every existing one read-only in every repository of the workspace, at any depth,
 * and removes any a command creates; a `.git` file (a `gitdir:` redirect) is kept the same way.
 */
export const GIT_CODE_PARTS: readonly string[] = [
  'config',
  'config.worktree',
  'hooks',
  'info',
  'objects/info/alternates',
  'objects/info/http-alternates',
  'commondir',
  'modules',
  'worktrees',
]

/** Files a folder holds that make git take it for a repository (a bare one, or a `.git`). */
export const GIT_DIRECTORY_MARKS: readonly string[] = ['HEAD', 'objects', 'refs']

/**
 * The todo lists of a stopped rebase or cherry-pick, relative to the git directory: their
 * `exec` lines run when the user continues (`git rebase --continue`), so the sandbox removes
 * any a command left there.
 */
export const GIT_TODO_LISTS: readonly string[] = [
  'rebase-merge/git-rebase-todo',
  'rebase-merge/git-rebase-todo.backup',
  'sequencer/todo',
]
