import {
  lstatSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { posix } from 'node:path'
import { REPOSITORY_CODE_PATHS } from '@plan/core'
import { isWithin } from '@plan/core/adapter'
import type { CommandViolation } from '@plan/tools'
import { GIT_TODO_LISTS } from './git-code-parts.js'
import type { SandboxConfig } from './sandbox-config.js'
import { scanWorkspace, type WorkspaceScan } from './workspace-scan.js'

/** What a path is, as far as a rename or a swap would change it. */
interface Identity {
  readonly device: number
  readonly inode: number
  readonly type: 'file' | 'folder' | 'link' | 'other'
  readonly link?: string
}

function identityOf(path: string): Identity | undefined {
  try {
    const stats = lstatSync(path)
    const type = stats.isSymbolicLink()
      ? 'link'
      : stats.isDirectory()
        ? 'folder'
        : stats.isFile()
          ? 'file'
          : 'other'
    const base = { device: stats.dev, inode: stats.ino, type } as const
    return type === 'link' ? { ...base, link: readlinkSync(path) } : base
  } catch {
    return undefined
  }
}

function sameIdentity(a: Identity | undefined, b: Identity | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  return a.device === b.device && a.inode === b.inode && a.type === b.type && a.link === b.link
}

/** The protected paths of a workspace before a command, to compare with after it. */
export interface WorkspaceSnapshot {
  readonly scan: WorkspaceScan
  readonly identities: ReadonlyMap<string, Identity | undefined>
  /** The `readOnly` and `deny` entries inside the workspace that did not exist. */
  readonly missing: readonly string[]
}

function codePartsOf(gitDirectory: string): string[] {
  return REPOSITORY_CODE_PATHS.map((part) => posix.join(gitDirectory, part))
}

/** Records the identity of every protected path: `readOnly`, `deny`, git code parts, `.git` files. */
export function snapshotWorkspace(config: SandboxConfig, scan: WorkspaceScan): WorkspaceSnapshot {
  const inWorkspace = (path: string) => config.writable.some((root) => isWithin(root, path))
  const entries = [...config.readOnly.filter(inWorkspace), ...config.deny.filter(inWorkspace)]
  const paths = [...entries, ...scan.gitDirectories.flatMap(codePartsOf), ...scan.gitFiles]
  const identities = new Map(paths.map((path) => [path, identityOf(path)]))
  const missing = entries.filter((path) => identities.get(path) === undefined)
  return { scan, identities, missing }
}

/**
 * Where a planted `part` really is: itself, or, when a folder above it is a link (`objects`
 * pointing elsewhere), the real path, so that the part is removed where it is and nothing is
 * removed through a link out of the workspace.
 */
function plantedAt(part: string, roots: readonly string[]): string | undefined {
  const parent = posix.dirname(part)
  let real: string
  try {
    real = posix.join(realpathSync.native(parent), posix.basename(part))
  } catch {
    return undefined
  }
  return real === part || roots.some((root) => isWithin(root, real)) ? real : undefined
}

function removed(path: string, what: string): CommandViolation {
  rmSync(path, { recursive: true, force: true })
  return {
    kind: 'write',
    message: `The command created ${what} ${path}, which git would run code from; it was removed.`,
    target: path,
  }
}

/** Removes a `readOnly` or `deny` entry that did not exist before the command and does now. */
function withoutCreated(
  snapshot: WorkspaceSnapshot,
  roots: readonly string[],
  standIns: ReadonlySet<string>,
): CommandViolation[] {
  const found: CommandViolation[] = []
  for (const path of snapshot.missing) {
    if (standIns.has(path) || identityOf(path) === undefined) continue
    const at = plantedAt(path, roots)
    if (at !== undefined) rmSync(at, { recursive: true, force: true })
    found.push({
      kind: 'write',
      message:
        at === undefined
          ? `The command created the protected path ${path} through a link out of the workspace; it was left in place.`
          : `The command created the protected path ${path}, which did not exist before; it was removed.`,
      target: path,
    })
  }
  return found
}

// A todo line that runs a shell command: `exec <command>` or `x <command>`.
const EXEC_LINE = /^[ \t]*(?:exec|x)(?:[ \t]|$)/

/** Removes the `exec` lines of the rebase and cherry-pick todo lists of one git directory. */
function withoutExecLines(gitDirectory: string, roots: readonly string[]): CommandViolation[] {
  const found: CommandViolation[] = []
  for (const name of GIT_TODO_LISTS) {
    // Never through a link out of the workspace.
    const path = plantedAt(posix.join(gitDirectory, name), roots)
    if (path === undefined || identityOf(path)?.type !== 'file') continue
    const lines = readFileSync(path, 'utf8').split('\n')
    const kept = lines.filter((line) => !EXEC_LINE.test(line))
    if (kept.length === lines.length) continue
    writeFileSync(path, kept.join('\n'))
    found.push({
      kind: 'write',
      message: `The command left exec lines in ${path}, which a later git rebase --continue would run; they were removed.`,
      target: path,
    })
  }
  return found
}

/** Puts back a protected link the command replaced; reports any other protected path it changed. */
function restoreChanged(snapshot: WorkspaceSnapshot): CommandViolation[] {
  const violations: CommandViolation[] = []
  for (const [path, before] of snapshot.identities) {
    if (before === undefined || sameIdentity(before, identityOf(path))) continue
    if (before.link !== undefined) {
      rmSync(path, { recursive: true, force: true })
      symlinkSync(before.link, path)
    }
    violations.push({
      kind: 'write',
      message:
        before.link === undefined
          ? `The command replaced the protected path ${path}.`
          : `The command replaced the protected link ${path}; it was put back.`,
      target: path,
    })
  }
  return violations
}

/**
 * Checks the workspace after a command, before anything else touches it: a protected link the
 * command replaced is put back; a `readOnly` or `deny` entry that did not exist before, a git
 * code-running part it created (in any repository, at any depth, a new repository's included)
 * and a `.git` file it wrote are removed, so that the next `git` or build of the host runs
 * nothing the command planted. The stand-ins in `standIns` (another command's, still in place)
 * are left alone. Each finding is a `write` violation.
 */
export function checkWorkspace(
  config: SandboxConfig,
  snapshot: WorkspaceSnapshot,
  skip: readonly string[],
  standIns: ReadonlySet<string> = new Set(),
): CommandViolation[] {
  const violations = restoreChanged(snapshot)
  violations.push(...withoutCreated(snapshot, config.writable, standIns))
  const after = scanWorkspace(config.writable, skip)
  const knownFiles = new Set(snapshot.scan.gitFiles)
  for (const directory of after.gitDirectories) {
    if (standIns.has(directory)) continue
    violations.push(...withoutExecLines(directory, config.writable))
    for (const part of codePartsOf(directory)) {
      const before = snapshot.identities.get(part)
      if (before !== undefined || standIns.has(part) || identityOf(part) === undefined) continue
      const at = plantedAt(part, config.writable)
      violations.push(
        at === undefined
          ? {
              kind: 'write',
              message: `The command created the git code-running part ${part} through a link out of the workspace; it was left in place.`,
              target: part,
            }
          : removed(at, 'the git code-running part'),
      )
    }
  }
  for (const file of after.gitFiles)
    if (!knownFiles.has(file)) violations.push(removed(file, 'the git redirect'))
  return violations
}
