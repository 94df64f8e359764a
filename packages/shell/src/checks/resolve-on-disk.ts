import { errorCode } from '../util/error-code.js'
import { loadNodeBuiltin, nodeBuiltin } from '../util/node-builtin.js'
import { posix } from '../util/posix-path.js'

/** Most symbolic links followed while resolving one path (Linux's MAXSYMLINKS). */
export const MAX_SYMLINK_HOPS = 40

interface Stats {
  isSymbolicLink(): boolean
  isDirectory(): boolean
}

/**
 * The synchronous calls of `node:fs` a resolution makes: each is one system call, and none
 * opens a file (`lstat`, `readlink`, `realpath`).
 */
export interface ResolvingFileSystem {
  lstatSync(path: string, options: { throwIfNoEntry: false }): Stats | undefined
  readlinkSync(path: string): string
  realpathSync: { native(path: string): string }
}

/** Where a path leads on disk, or why it cannot be followed safely. */
export type Resolution =
  | { readonly ok: true; readonly real: string }
  | { readonly ok: false; readonly reason: string }

/**
 * Resolves absolute paths for one check, each folder's real path asked once. `likelyPresent`
 * (a root, the file a call names) asks `realpath` first; otherwise `lstat` comes first, so a
 * name that does not exist costs no thrown error.
 */
export type Resolve = (absolute: string, likelyPresent?: boolean) => Resolution

/** `realpathSync.native`, as one check asks it: each path once. */
class RealPath {
  readonly #fs: ResolvingFileSystem
  readonly #known = new Map<string, { readonly real: string } | { readonly error: unknown }>()

  constructor(fs: ResolvingFileSystem, seeds: ReadonlyMap<string, string>) {
    this.#fs = fs
    for (const [path, real] of seeds) this.#known.set(path, { real })
  }

  /** The real path of `path`; throws as `realpath` does. */
  of(path: string): string {
    let answer = this.#known.get(path)
    if (answer === undefined) {
      try {
        answer = { real: this.#fs.realpathSync.native(path) }
      } catch (error) {
        answer = { error }
      }
      this.#known.set(path, answer)
    }
    if ('error' in answer) throw answer.error
    return answer.real
  }

  /** True when the path's real path is known already (asked, given or remembered). */
  known(path: string): boolean {
    const answer = this.#known.get(path)
    return answer !== undefined && 'real' in answer
  }

  /** Records a folder's real path found without asking `realpath`. */
  remember(path: string, real: string): void {
    this.#known.set(path, { real })
  }
}

const NO_SEEDS: ReadonlyMap<string, string> = new Map()

/**
 * A {@link Resolve} over `fs`. `seeds` are real paths already known (a checker's roots), taken
 * as the answers of `realpath` for those paths.
 */
export function createResolver(
  fs: ResolvingFileSystem,
  seeds: ReadonlyMap<string, string> = NO_SEEDS,
): Resolve {
  const realpath = new RealPath(fs, seeds)
  return (absolute, likelyPresent = false) => resolveOnDisk(fs, realpath, absolute, likelyPresent)
}

/** The file system the resolution uses, when the runtime has one (`node:fs`). */
export function resolvingFileSystem(): ResolvingFileSystem | undefined {
  return nodeBuiltin<ResolvingFileSystem>('node:fs')
}

/** {@link resolvingFileSystem}, also where `node:fs` is only reachable by a dynamic import. */
export function loadResolvingFileSystem(): Promise<ResolvingFileSystem | undefined> {
  return loadNodeBuiltin<ResolvingFileSystem>('node:fs')
}

/**
 * Resolves an absolute path the way the kernel does. Its system calls are synchronous: each is
 * one call on a local file system, far cheaper than a round trip through the thread pool, and
 * nothing else runs between them. Below a folder whose real path is known (a root, a folder met
 * before), each component costs one `lstat`; otherwise a path that exists resolves in two calls
 * (one when it is `likelyPresent`), with the kernel's own rules, and a missing name in a folder
 * that exists in two. Anything else (a link below a known folder, a missing folder, a dangling
 * link, a loop, a file used as a folder) takes `realpath` or the walk, which says why.
 */
function resolveOnDisk(
  fs: ResolvingFileSystem,
  realpath: RealPath,
  absolute: string,
  likelyPresent: boolean,
): Resolution {
  // What realpath resolves exists, and is what the lstat below would lead to.
  if (likelyPresent)
    try {
      return { ok: true, real: realpath.of(absolute) }
    } catch {
      // asked below what it is; the failed realpath is not asked again
    }
  try {
    const below = realBelowKnown(fs, realpath, absolute)
    if (below !== undefined) return { ok: true, real: below }
    if (fs.lstatSync(absolute, { throwIfNoEntry: false }) !== undefined)
      return { ok: true, real: realpath.of(absolute) }
    const name = absolute.slice(absolute.lastIndexOf('/') + 1)
    if (name !== '' && name !== '.' && name !== '..') {
      const folder = realpath.of(posix.dirname(absolute))
      return { ok: true, real: folder === '/' ? `/${name}` : `${folder}/${name}` }
    }
  } catch {
    // the walk below finds the component at fault
  }
  return resolveByWalk(fs, absolute)
}

/**
 * The real path of `absolute` by one `lstat` per component below the nearest folder whose real
 * path is known, when no component there is a link, a `..`, or a file used as a folder (then
 * undefined); a missing component is taken as a folder a tool would create, as the walk does.
 * The folders met are remembered.
 */
function realBelowKnown(
  fs: ResolvingFileSystem,
  realpath: RealPath,
  absolute: string,
): string | undefined {
  const names: string[] = []
  let folder = absolute
  while (!realpath.known(folder)) {
    const slash = folder.lastIndexOf('/')
    if (slash < 0 || folder === '/') return undefined
    const name = folder.slice(slash + 1)
    if (name === '..') return undefined
    names.push(name)
    folder = slash === 0 ? '/' : folder.slice(0, slash)
  }
  let path = folder
  let real = realpath.of(folder)
  let folderLike = true
  for (let index = names.length - 1; index >= 0; index -= 1) {
    const name = names[index] ?? ''
    if (!folderLike) return undefined
    if (name === '' || name === '.') continue
    path = path === '/' ? `/${name}` : `${path}/${name}`
    const stats = fs.lstatSync(path, { throwIfNoEntry: false })
    if (stats?.isSymbolicLink() === true) return undefined
    real = real === '/' ? `/${name}` : `${real}/${name}`
    folderLike = stats === undefined || stats.isDirectory()
    if (stats?.isDirectory() === true) realpath.remember(path, real)
  }
  return real
}

/**
 * Resolves one path component at a time: a symbolic link is replaced by its target before a
 * following `..` applies (so `link/../x` is the `x` beside the link's target, not beside the
 * link). A component that does not exist is taken as a folder a tool would create, and
 * resolving goes on after it, so a `..` that climbs back onto real folders meets their links;
 * a dangling link is judged by its target.
 */
function resolveByWalk(fs: ResolvingFileSystem, absolute: string): Resolution {
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

/**
 * The first symbolic link on the way to an absolute path (the path itself or a folder above
 * it) below the folder `below` (a root, whose own links do not count), by `lstat` from there
 * down; undefined when none is before a missing component or a `..`.
 */
export function firstLinkOnWay(
  fs: ResolvingFileSystem,
  absolute: string,
  below = '/',
): string | undefined {
  const start = below === '/' || !absolute.startsWith(`${below}/`) ? '' : below
  let path = start
  for (const part of absolute.slice(start.length).split('/')) {
    if (part === '' || part === '.') continue
    if (part === '..') return undefined
    path = `${path}/${part}`
    try {
      const stats = fs.lstatSync(path, { throwIfNoEntry: false })
      if (stats === undefined) return undefined
      if (stats.isSymbolicLink()) return path
    } catch {
      return undefined
    }
  }
  return undefined
}
