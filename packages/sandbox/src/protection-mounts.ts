import { lstatSync, realpathSync } from 'node:fs'
import { posix } from 'node:path'
import { REPOSITORY_CODE_PATHS } from '@plan/core'
import { isWithin } from '@plan/core/adapter'
import type { SandboxConfig } from './sandbox-config.js'
import type { WorkspaceScan } from './workspace-scan.js'

type MountKind = 'pin' | 'readOnly' | 'mask'

function realOf(path: string): string | undefined {
  try {
    return realpathSync.native(path)
  } catch {
    return undefined
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path)
    return true
  } catch {
    return false
  }
}

/** Folders between the workspace root that holds `path` and `path`, both left out. */
export function ancestorsWithin(roots: readonly string[], path: string): string[] {
  const root = roots.find((candidate) => isWithin(candidate, path) && candidate !== path)
  if (root === undefined) return []
  const found: string[] = []
  for (let folder = posix.dirname(path); folder !== root; folder = posix.dirname(folder)) {
    if (folder === '/' || !isWithin(root, folder)) break
    found.push(folder)
  }
  return found
}

/** The existing code-running parts of one git directory, by their real path. */
export function existingCodeParts(gitDirectory: string): string[] {
  return REPOSITORY_CODE_PATHS.map((part) => posix.join(gitDirectory, part)).filter(exists)
}

class MountPlan {
  readonly kinds = new Map<string, MountKind>()
  readonly hiddenBy: readonly string[]

  constructor(hiddenBy: readonly string[]) {
    this.hiddenBy = hiddenBy
  }

  add(path: string, kind: MountKind): void {
    if (kind !== 'mask' && this.hiddenBy.some((hidden) => isWithin(hidden, path))) return
    const rank = { pin: 0, readOnly: 1, mask: 2 }
    const current = this.kinds.get(path)
    if (current === undefined || rank[kind] > rank[current]) this.kinds.set(path, kind)
  }

  /** bubblewrap arguments, outer folders first: a later mount never covers an earlier one. */
  args(readOnly: readonly string[]): string[] {
    const depth = (path: string) => path.split('/').length
    const paths = [...this.kinds.keys()].sort((a, b) => depth(a) - depth(b))
    const args: string[] = []
    for (const path of paths) {
      const kind = this.kinds.get(path)
      // A folder pinned inside a read-only one would be writable again.
      if (kind === 'pin' && readOnly.some((entry) => isWithin(entry, path))) continue
      if (kind === 'pin') args.push('--bind', path, path)
      else if (kind === 'readOnly') args.push('--ro-bind', path, path)
      else if (lstatSync(path).isDirectory()) args.push('--tmpfs', path, '--remount-ro', path)
      else args.push('--ro-bind', '/dev/null', path)
    }
    return args
  }
}

/**
 * The mounts that keep protected paths protected by identity, not by name: `readOnly` entries
 * (a git directory among them: its code-running parts) and the code-running parts of every git
 * directory bound read-only, `deny` entries masked,
 * host sockets in the workspace covered by `/dev/null`, and every git directory and every
 * folder above a protected entry bound onto itself, so that no command can rename or remove
 * it (the kernel refuses with EBUSY) and put another in its place. The stand-ins of missing
 * protected paths are bound read-only like `readOnly` entries: the name is taken, so it can be
 * neither created, linked, renamed onto nor written.
 */
export function protectionMounts(
  config: SandboxConfig,
  scan: WorkspaceScan,
  visible: readonly string[],
  standIns: readonly string[] = [],
): string[] {
  const roots = config.writable
  const inWorkspace = (path: string) => roots.some((root) => isWithin(root, path))
  const deny = config.deny
    .map(realOf)
    .filter(
      (path): path is string =>
        path !== undefined && visible.some((folder) => isWithin(folder, path)),
    )
  // A readOnly entry that is a repository's git folder protects what in it runs code (its code
  // parts, below); git writes the rest of it, as the static checks let it.
  const readOnly = config.readOnly
    .map(realOf)
    .filter(
      (path): path is string =>
        path !== undefined && inWorkspace(path) && !scan.gitDirectories.includes(path),
    )
  const plan = new MountPlan(deny)
  const protect = (path: string, kind: MountKind) => {
    if (inWorkspace(path))
      for (const folder of ancestorsWithin(roots, path)) plan.add(folder, 'pin')
    plan.add(path, kind)
  }
  for (const path of readOnly) protect(path, 'readOnly')
  for (const path of standIns) protect(path, 'readOnly')
  // A readOnly name that does not exist yet: the folders above it stay where they are.
  for (const entry of config.readOnly.filter(inWorkspace))
    for (const folder of ancestorsWithin(roots, entry)) if (exists(folder)) plan.add(folder, 'pin')
  for (const directory of scan.gitDirectories) {
    if (!roots.includes(directory)) plan.add(directory, 'pin')
    for (const part of existingCodeParts(directory)) plan.add(part, 'readOnly')
  }
  for (const file of scan.gitFiles) plan.add(file, 'readOnly')
  for (const socket of scan.sockets) plan.add(socket, 'mask')
  for (const path of deny) protect(path, 'mask')
  return plan.args(readOnly)
}
