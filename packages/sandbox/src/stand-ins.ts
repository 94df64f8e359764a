import { lstatSync, type Stats } from 'node:fs'
import { posix } from 'node:path'
import { REPOSITORY_CODE_PATHS } from '@plan/core'
import { isWithin } from '@plan/core/adapter'
import type { SandboxConfig } from './sandbox-config.js'
import type { WorkspaceScan } from './workspace-scan.js'

/**
 * What takes the place of a protected path that does not exist while a command runs: an empty
 * read-only folder, or a read-only file whose content the tools that read the name take as
 * if nothing were there.
 */
export interface StandIn {
  readonly path: string
  readonly kind: 'file' | 'folder'
  readonly content: string
}

// Code parts of a git directory that git reads as folders.
const GIT_FOLDER_PARTS = new Set(['hooks', 'info', 'modules', 'worktrees'])

// Names whose tools ignore a folder of that name as if it were absent, while any file there,
// empty or not, would change what they do (go's workspace mode, rustup's toolchain choice).
const FOLDER_NAMES = new Set(['.git', '.cargo', 'go.work', 'rust-toolchain', 'rust-toolchain.toml'])

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path)
  } catch {
    return undefined
  }
}

/** A protected path and whether it is a code part of a git directory, by that part's name. */
interface Protected {
  readonly path: string
  readonly gitPart?: string
}

/**
 * The protected paths of a command: `readOnly` and `deny` entries inside the workspace (none
 * inside a denied folder, which is masked whole, and none of the host home's credential stores,
 * whose names a stand-in would break for the host's own tools: an empty `.ssh` file), and the
 * code-running parts of every git directory the scan found that is not itself a stand-in.
 */
function protectedPaths(
  config: SandboxConfig,
  scan: WorkspaceScan,
  isStandIn: (path: string) => boolean,
): Protected[] {
  const inWorkspace = (path: string) => config.writable.some((root) => isWithin(root, path))
  const denied = config.deny.filter((path) => inWorkspace(path) && lstatOrUndefined(path))
  const hidden = (path: string) =>
    denied.some((folder) => folder !== path && isWithin(folder, path))
  const found: Protected[] = []
  const credentials = new Set(config.credentials)
  for (const path of [...config.readOnly, ...config.deny]) {
    if (!inWorkspace(path) || hidden(path) || credentials.has(path)) continue
    const part = posix.basename(path)
    const inGit = posix.basename(posix.dirname(path)) === '.git'
    found.push(inGit && REPOSITORY_CODE_PATHS.includes(part) ? { path, gitPart: part } : { path })
  }
  for (const directory of scan.gitDirectories) {
    if (isStandIn(directory) || hidden(directory)) continue
    for (const part of REPOSITORY_CODE_PATHS)
      found.push({ path: posix.join(directory, part), gitPart: part })
  }
  return found
}

/**
 * The first component of `path` below its workspace root that does not exist, or undefined
 * when nothing needs to stand in: the path exists, a link or a file lies on the way (a pinned
 * file cannot be replaced by a folder), or the way passes through a stand-in already there.
 */
function firstMissing(
  roots: readonly string[],
  path: string,
  isStandIn: (path: string) => boolean,
): string | undefined {
  const root = roots.find((candidate) => isWithin(candidate, path) && candidate !== path)
  if (root === undefined) return undefined
  const parts = posix.relative(root, path).split('/')
  let current = root
  for (const part of parts) {
    current = posix.join(current, part)
    if (isStandIn(current)) return current
    const stats = lstatOrUndefined(current)
    if (stats === undefined) return current
    if (current === path || stats.isSymbolicLink() || !stats.isDirectory()) return undefined
  }
  return undefined
}

/** What GNU make reads in the place of a missing `GNUmakefile` or `makefile`: the next one. */
function makefileContent(path: string): string {
  const folder = posix.dirname(path)
  if (posix.basename(path) === 'makefile') return '-include Makefile\n'
  return lstatOrUndefined(posix.join(folder, 'makefile')) === undefined
    ? '-include Makefile\n'
    : '-include makefile\n'
}

function standInFor(target: Protected, below: boolean): StandIn {
  const name = posix.basename(target.path)
  const path = target.path
  if (below || FOLDER_NAMES.has(name)) return { path, kind: 'folder', content: '' }
  if (target.gitPart !== undefined && GIT_FOLDER_PARTS.has(target.gitPart))
    return { path, kind: 'folder', content: '' }
  // A common directory of "." is the git directory itself, as when there is no such file.
  if (target.gitPart === 'commondir') return { path, kind: 'file', content: '.\n' }
  if (name === 'GNUmakefile' || name === 'makefile')
    return { path, kind: 'file', content: makefileContent(path) }
  return { path, kind: 'file', content: '' }
}

/**
 * The stand-ins a command needs: one at the first missing component of each protected path
 * (a folder when a protected path lies below it), and the stand-ins already in place on its
 * way, which the command shares.
 */
export function planStandIns(
  config: SandboxConfig,
  scan: WorkspaceScan,
  isStandIn: (path: string) => boolean,
): StandIn[] {
  const byPath = new Map<string, StandIn>()
  // Nothing can be created inside a folder that is read-only already.
  const readOnlyFolders = [
    ...config.readOnly,
    ...scan.gitDirectories.flatMap((directory) =>
      [...GIT_FOLDER_PARTS].map((part) => posix.join(directory, part)),
    ),
  ].filter((path) => lstatOrUndefined(path)?.isDirectory() === true)
  const inReadOnly = (path: string) =>
    readOnlyFolders.some((folder) => folder !== path && isWithin(folder, path))
  for (const target of protectedPaths(config, scan, isStandIn)) {
    const at = firstMissing(config.writable, target.path, isStandIn)
    if (at === undefined || inReadOnly(at)) continue
    const below = at !== target.path
    const planned = standInFor(below ? { path: at } : target, below)
    const known = byPath.get(at)
    if (known === undefined || (known.kind === 'file' && planned.kind === 'folder'))
      byPath.set(at, planned)
  }
  return [...byPath.values()]
}
