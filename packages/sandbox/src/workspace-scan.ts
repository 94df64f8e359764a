import { type Dirent, readdirSync } from 'node:fs'
import { posix } from 'node:path'
import { isWithin } from '@plan/core/adapter'
import { GIT_DIRECTORY_MARKS } from './git-code-parts.js'

/** What a walk of the workspace found that the sandbox must protect. */
export interface WorkspaceScan {
  /** Folders git takes for a git directory: every `.git` folder and every bare repository. */
  readonly gitDirectories: readonly string[]
  /** `.git` files (`gitdir:` redirects), at any depth. */
  readonly gitFiles: readonly string[]
  /** Unix sockets, which a process of the host may be listening on. */
  readonly sockets: readonly string[]
}

function isGitDirectory(entries: readonly Dirent[]): boolean {
  return GIT_DIRECTORY_MARKS.every((mark) =>
    entries.some((entry) => entry.name === mark && (mark === 'HEAD' || entry.isDirectory())),
  )
}

/**
 * Walks the workspace roots (links are not followed) for git directories, `.git` files and
 * sockets, skipping the folders in `skip` (what the sandbox masks anyway). A git directory's
 * own folders are not walked: its parts are looked up by name, and only the sockets at its top
 * are listed.
 */
export function scanWorkspace(
  roots: readonly string[],
  skip: readonly string[] = [],
): WorkspaceScan {
  const gitDirectories: string[] = []
  const gitFiles: string[] = []
  const sockets: string[] = []
  const pending = [...roots]
  for (let folder = pending.pop(); folder !== undefined; folder = pending.pop()) {
    let entries: Dirent[]
    try {
      entries = readdirSync(folder, { withFileTypes: true })
    } catch {
      continue
    }
    if (posix.basename(folder) === '.git' || isGitDirectory(entries)) {
      gitDirectories.push(folder)
      // git's own daemons listen here (`fsmonitor--daemon.ipc`).
      for (const entry of entries)
        if (entry.isSocket()) sockets.push(posix.join(folder, entry.name))
      continue
    }
    for (const entry of entries) {
      const path = posix.join(folder, entry.name)
      if (entry.isSocket()) sockets.push(path)
      // A `.git` that is a file or a link leads git to another git directory.
      else if (entry.name === '.git' && !entry.isDirectory()) gitFiles.push(path)
      else if (entry.isDirectory() && !skip.some((hidden) => isWithin(hidden, path)))
        pending.push(path)
    }
  }
  return { gitDirectories, gitFiles, sockets }
}
