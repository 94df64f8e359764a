import { lstat, readdir } from 'node:fs/promises'
import { posix } from 'node:path'

/** What a walk of the workspace saw: each file's identity and version, or that it stopped. */
export interface WorkspaceFiles {
  /** Relative path → `inode:size:mtime` of each file and link seen. */
  readonly files: ReadonlyMap<string, string>
  /** True when the walk stopped at its limit: what changed is then unknown. */
  readonly incomplete: boolean
  /** Relative paths of the symbolic links seen (a recursive reader may follow them). */
  readonly links: readonly string[]
}

/** Folders a walk does not enter: installed packages, and git's own store. */
const SKIPPED = new Set(['node_modules'])
/** The parts of a `.git` folder a command could plant code in (the rest is git's store). */
const GIT_CODE = new Set(['hooks', 'config', 'info'])

/** Default most entries a walk reads before it gives up (and reports `incomplete`). */
export const MAX_WALKED_ENTRIES = 50_000

function versionOf(stats: { ino: number; size: number; mtimeMs: number; mode: number }): string {
  return `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.mode}`
}

/**
 * Reads the files of a workspace root (relative paths and versions), without following links
 * and without entering `node_modules` or the store of a `.git` folder (its hooks, config and
 * info are read). Stops after `limit` entries, marking the result incomplete.
 */
export async function readWorkspaceFiles(
  root: string,
  limit = MAX_WALKED_ENTRIES,
): Promise<WorkspaceFiles> {
  const files = new Map<string, string>()
  const links: string[] = []
  const folders: string[] = ['']
  let entries = 0
  for (let relative = folders.pop(); relative !== undefined; relative = folders.pop()) {
    const inGit = relative === '.git' || relative.endsWith('/.git')
    let listing: import('node:fs').Dirent[]
    try {
      listing = await readdir(posix.join(root, relative), { withFileTypes: true })
    } catch {
      continue
    }
    for (const entry of listing) {
      entries += 1
      if (entries > limit) return { files, incomplete: true, links }
      const name = entry.name
      if (inGit && !GIT_CODE.has(name)) continue
      const path = relative === '' ? name : `${relative}/${name}`
      if (entry.isDirectory()) {
        if (!SKIPPED.has(name)) folders.push(path)
        continue
      }
      if (entry.isSymbolicLink()) links.push(path)
      try {
        files.set(path, versionOf(await lstat(posix.join(root, path))))
      } catch {
        // removed while the walk ran: neither written nor kept
      }
    }
  }
  return { files, incomplete: false, links }
}

/** The files that are new or changed in `after`, relative to the root; `**` when unknown. */
export function writtenFiles(before: WorkspaceFiles, after: WorkspaceFiles): string[] {
  if (before.incomplete || after.incomplete) return ['**']
  const written: string[] = []
  for (const [path, version] of after.files)
    if (before.files.get(path) !== version) written.push(path)
  return written
}
