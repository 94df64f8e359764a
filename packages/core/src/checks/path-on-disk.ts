import type { PathAccess, PathCheckResult, PathDenial, PathScope } from '../types/path-scope.js'
import { errorCode } from '../util/error-code.js'
import { stringAt } from '../util/item-at.js'
import { loadNodeBuiltin } from '../util/node-builtin.js'
import { posix } from '../util/posix-path.js'
import { checkPathLexical, isWithin } from './path-scope.js'
import { deniedHint, placeInList, readOnlyHint } from './path-wording.js'

/** Most symbolic links followed while resolving one path (Linux's MAXSYMLINKS). */
export const MAX_SYMLINK_HOPS = 40

interface Stats {
  isSymbolicLink(): boolean
  isDirectory(): boolean
}

/** The synchronous calls of `node:fs` the resolution makes: each is one system call. */
interface FileSystem {
  lstatSync(path: string, options: { throwIfNoEntry: false }): Stats | undefined
  readlinkSync(path: string): string
  realpathSync: { native(path: string): string }
}

type Resolution =
  | { readonly ok: true; readonly real: string }
  | { readonly ok: false; readonly reason: string }

/**
 * Resolves an absolute path the way the kernel does. Its system calls are synchronous: each is
 * one call on a local file system, far cheaper than a round trip through the thread pool, and
 * nothing else runs between them. A path that exists resolves in two calls (one when it is
 * `likelyPresent`, such as a root or the file a call names), with the kernel's own rules; a
 * missing name in a folder that exists, in two (three); anything else (a missing folder, a
 * dangling link, a loop, a file used as a folder) takes the walk, which says why.
 */
function resolveOnDisk(
  fs: FileSystem,
  realpath: RealPath,
  absolute: string,
  likelyPresent: boolean,
): Resolution {
  // What realpath resolves exists, and is what the lstat below would lead to.
  if (likelyPresent)
    try {
      return { ok: true, real: realpath(absolute) }
    } catch {
      // asked below what it is; the failed realpath is not asked again
    }
  try {
    if (fs.lstatSync(absolute, { throwIfNoEntry: false }) !== undefined)
      return { ok: true, real: realpath(absolute) }
    const name = absolute.slice(absolute.lastIndexOf('/') + 1)
    if (name !== '' && name !== '.' && name !== '..') {
      const folder = realpath(posix.dirname(absolute))
      return { ok: true, real: folder === '/' ? `/${name}` : `${folder}/${name}` }
    }
  } catch {
    // the walk below finds the component at fault
  }
  return resolveByWalk(fs, absolute)
}

/** `realpathSync.native`, as one check asks it: each path once (a root is also a deny entry's folder). */
type RealPath = (path: string) => string

function realPathOnce(fs: FileSystem): RealPath {
  const known = new Map<string, { readonly real: string } | { readonly error: unknown }>()
  return (path) => {
    let answer = known.get(path)
    if (answer === undefined) {
      try {
        answer = { real: fs.realpathSync.native(path) }
      } catch (error) {
        answer = { error }
      }
      known.set(path, answer)
    }
    if ('error' in answer) throw answer.error
    return answer.real
  }
}

/** Resolves paths for one check; where the runtime has no file system, none resolves. */
type Resolve = (absolute: string, likelyPresent?: boolean) => Resolution

async function resolverOnDisk(): Promise<Resolve> {
  const fs = await loadNodeBuiltin<FileSystem>('node:fs')
  if (fs === undefined)
    return () => ({ ok: false, reason: 'this runtime has no file system to check it against' })
  const realpath = realPathOnce(fs)
  return (absolute, likelyPresent = false) => resolveOnDisk(fs, realpath, absolute, likelyPresent)
}

/**
 * {@link resolveOnDisk} one component at a time: a symbolic link is replaced by its target
 * before a following `..` applies (so `link/../x` is the `x` beside the link's target, not
 * beside the link). A component that does not exist is taken as a folder a tool would create,
 * and resolving goes on after it, so a `..` that climbs back onto real folders meets their
 * links; a dangling link is judged by its target.
 */
function resolveByWalk(fs: FileSystem, absolute: string): Resolution {
  const pending = absolute.split('/').reverse()
  let real = '/'
  let hops = 0
  while (pending.length > 0) {
    const part = pending.pop()
    if (part === undefined) break
    if (part === '' || part === '.') continue
    if (part === '..') {
      real = posix.dirname(real)
      continue
    }
    const candidate = real === '/' ? `/${part}` : `${real}/${part}`
    let stats: Stats | undefined
    try {
      stats = fs.lstatSync(candidate, { throwIfNoEntry: false })
    } catch (error) {
      return { ok: false, reason: `${candidate}: ${errorCode(error) ?? 'error'}` }
    }
    // A missing folder is taken as one a tool would create; a later `..` climbs back out of
    // it onto real folders, whose links must still be followed (`missing/../link/x`).
    if (stats === undefined) {
      real = candidate
      continue
    }
    if (stats.isSymbolicLink()) {
      hops += 1
      if (hops > MAX_SYMLINK_HOPS)
        return { ok: false, reason: `${absolute}: too many symbolic links (ELOOP)` }
      let target: string
      try {
        target = fs.readlinkSync(candidate)
      } catch (error) {
        return { ok: false, reason: `${candidate}: ${errorCode(error) ?? 'error'}` }
      }
      if (target.length === 0 || target.includes('\0'))
        return { ok: false, reason: `${candidate}: empty link` }
      if (target.startsWith('/')) real = '/'
      pending.push(...target.split('/').reverse())
      continue
    }
    if (!stats.isDirectory() && pending.some((rest) => rest !== '' && rest !== '.')) {
      return { ok: false, reason: `${candidate}: not a folder (ENOTDIR)` }
    }
    real = candidate
  }
  return { ok: true, real }
}

function denial(code: PathDenial['code'], message: string, hint: string): PathCheckResult {
  return { allowed: false, issue: { code, message, hint } }
}

/** Resolves each entry on disk, keeping the written form too; unresolvable entries stay lexical. */
function realEntries(resolve: Resolve, entries: readonly string[]): string[] {
  const out = new Set(entries)
  for (const entry of entries) {
    const resolved = resolve(entry)
    if (resolved.ok) out.add(resolved.real)
  }
  return [...out]
}

/**
 * Checks a path argument lexically and then on disk: symbolic links are resolved (the
 * nearest existing ancestor's real path for a file that does not exist yet, a dangling link
 * by its target), and the real path must lie inside a workspace root (itself resolved, so a
 * root may be a link) and outside the `deny` (and, for writes, `readOnly`) entries. Loops,
 * permission errors and any other file system error deny.
 *
 * On success `resolved` is the real path; open that, not the argument, so a relative path
 * cannot be read against another working folder.
 *
 * @example
 * ```ts
 * const result = await checkPathOnDisk('notes/today.md', compiler.policy.scope, 'write')
 * if (result.allowed) await writeFile(result.resolved, text)
 * ```
 */
export async function checkPathOnDisk(
  value: unknown,
  scope: PathScope,
  access: PathAccess = 'read',
): Promise<PathCheckResult> {
  const lexical = checkPathLexical(value, scope, access)
  if (!lexical.allowed) return lexical
  const text = value as string
  const first = stringAt(scope.roots, 0)
  // Joined without normalising: `..` must apply after links are followed, as the kernel does.
  const joined = text.startsWith('/') ? text : `${first}/${text}`
  const resolve = await resolverOnDisk()
  const resolution = resolve(joined, true)
  if (!resolution.ok) {
    return denial(
      'path_not_allowed',
      `The path ${JSON.stringify(text)} cannot be resolved safely on disk (${resolution.reason}).`,
      'Use a plain path to an existing folder inside the workspace, without link loops.',
    )
  }
  const real = resolution.real
  const roots: string[] = []
  for (const root of scope.roots) {
    const resolvedRoot = resolve(root, true)
    if (resolvedRoot.ok) roots.push(resolvedRoot.real)
  }
  const rootList = scope.roots.join(', ')
  if (!roots.some((root) => isWithin(root, real))) {
    return denial(
      'path_outside_workspace',
      `The path ${JSON.stringify(text)} leads to ${real} on disk (through a symbolic link), outside the workspace (${rootList}).`,
      `Use a path whose real location is inside ${rootList}; links may not lead out.`,
    )
  }
  const denied = realEntries(resolve, scope.deny).find((entry) => isWithin(entry, real))
  if (denied !== undefined) {
    return denial(
      'path_not_allowed',
      `The path ${JSON.stringify(text)} leads to ${placeInList(real, denied, 'workspace.deny')}: it may be neither read nor written.`,
      deniedHint(denied),
    )
  }
  if (access === 'write') {
    const readOnly = realEntries(resolve, scope.readOnly).find((entry) => isWithin(entry, real))
    if (readOnly !== undefined) {
      return denial(
        'path_not_allowed',
        `The path ${JSON.stringify(text)} leads to ${placeInList(real, readOnly, 'workspace.readOnly')}: it may be read, not written.`,
        readOnlyHint(readOnly),
      )
    }
  }
  return { allowed: true, resolved: real }
}
