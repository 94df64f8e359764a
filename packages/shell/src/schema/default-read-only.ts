/**
 * The code-running parts of a git directory, relative to it (`<repo>/.git/…`, or a bare
 * repository's own folder): what git reads to decide which programs to run (`core.fsmonitor`,
 * `core.pager`, filters and aliases in config files, hooks, `info/` attributes), or which other
 * repository to read (object alternates, `commondir`, submodule repositories, linked
 * worktrees). Whoever can write one of these makes the next `git status` run their code, in
 * every repository at any depth. The static checks refuse writes to them and the sandbox keeps
 * them read-only; a `.git` *file* (a `gitdir:` redirect) is protected the same way.
 */
export const REPOSITORY_CODE_PATHS: readonly string[] = Object.freeze([
  'config',
  'config.worktree',
  'hooks',
  'info',
  'objects/info/alternates',
  'objects/info/http-alternates',
  'commondir',
  'modules',
  'worktrees',
])

/**
 * The default `workspace.readOnly`: the {@link REPOSITORY_CODE_PATHS} of the root repository's
 * `.git`, so that `git add`, `git commit`, `git checkout -b`, `git stash` and `git tag` can
 * write the rest of `.git`.
 */
export const DEFAULT_READ_ONLY: readonly string[] = Object.freeze(
  REPOSITORY_CODE_PATHS.map((part) => `.git/${part}`),
)
