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
