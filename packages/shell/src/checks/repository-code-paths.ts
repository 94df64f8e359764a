import { REPOSITORY_CODE_PATHS } from '../schema/default-read-only.js'

export { REPOSITORY_CODE_PATHS }

/** The name of a repository's git directory, or of a file that redirects to one. */
export const GIT_DIRECTORY_NAME = '.git'

/**
 * The code-running part a normalised absolute path is or lies in, by name: a `.git` entry
 * itself (folder or redirect file), or a {@link REPOSITORY_CODE_PATHS} entry under a `.git`
 * segment at any depth. Undefined for everything else, including the data git itself writes
 * (`objects/`, `refs/`, `index`, `HEAD`, `logs/`).
 */
export function repositoryCodePart(path: string): string | undefined {
  const segments = path.split('/')
  for (let index = 0; index < segments.length; index += 1) {
    if (segments[index] !== GIT_DIRECTORY_NAME) continue
    const gitDirectory = segments.slice(0, index + 1).join('/')
    if (index === segments.length - 1) return gitDirectory
    const part = codePartBelow(segments.slice(index + 1))
    if (part !== undefined) return `${gitDirectory}/${part}`
  }
  return undefined
}

/**
 * The code-running part a path relative to a git directory is or lies in (`hooks/pre-commit`
 * lies in `hooks`), or undefined.
 */
export function codePartBelow(relative: readonly string[]): string | undefined {
  const joined = relative.join('/')
  return REPOSITORY_CODE_PATHS.find((part) => joined === part || joined.startsWith(`${part}/`))
}

/** What {@link looksLikeGitDirectory} needs to know of the disk. */
export interface DiskView {
  /** True when something (file, folder or link) exists at the absolute path. */
  exists(path: string): boolean
}

/**
 * True when the folder is a git directory on disk: a bare repository or a `.git` folder holds
 * `HEAD` beside `objects` or `commondir`, and git would use it as a repository's gitdir.
 */
export function looksLikeGitDirectory(folder: string, disk: DiskView): boolean {
  const base = folder === '/' ? '' : folder
  return (
    disk.exists(`${base}/HEAD`) &&
    (disk.exists(`${base}/objects`) || disk.exists(`${base}/commondir`))
  )
}
