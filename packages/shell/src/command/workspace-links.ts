import { isWithin } from '../checks/path-scope.js'
import {
  createResolver,
  firstLinkOnWay,
  type Resolution,
  type Resolve,
  type ResolvingFileSystem,
  resolvingFileSystem,
} from '../checks/resolve-on-disk.js'
import type { PathScope } from '../types/path-scope.js'
import { noteDiskConsulted } from './disk-verdicts.js'

/**
 * A workspace whose roots exist on the checking process's disk: the roots' real paths, and the
 * scope with the real path of every root, `deny` and `readOnly` entry added to its written one
 * (asked once, when the checker is made).
 */
export interface WorkspaceOnDisk {
  readonly fs: ResolvingFileSystem
  /** Each root that exists, by its written path, with its real path. */
  readonly roots: ReadonlyMap<string, string>
  /** The scope a real path is judged against. */
  readonly realScope: PathScope
}

/** The workspace on disk, or undefined when the runtime has no file system or no root exists. */
export function workspaceOnDisk(
  scope: PathScope,
  fs: ResolvingFileSystem | undefined = resolvingFileSystem(),
): WorkspaceOnDisk | undefined {
  if (fs === undefined) return undefined
  const roots = new Map<string, string>()
  for (const root of scope.roots) {
    try {
      roots.set(root, fs.realpathSync.native(root))
    } catch {
      // a root that does not exist holds nothing a link could lead to
    }
  }
  if (roots.size === 0) return undefined
  const resolve = createResolver(fs, roots)
  const withReal = (entries: readonly string[]) => {
    const out = new Set(entries)
    for (const entry of entries) {
      const resolved = resolve(entry)
      if (resolved.ok) out.add(resolved.real)
    }
    return [...out]
  }
  const realScope: PathScope = {
    roots: [...new Set([...scope.roots, ...roots.values()])],
    readOnly: withReal(scope.readOnly),
    deny: withReal(scope.deny),
  }
  return { fs, roots, realScope }
}

/** Where a value's link leads: the real path, the first link on the way and that link's target. */
export interface LinkedTarget {
  readonly resolution: Resolution
  /** The first link on the way, quoted, relative to the first root when inside it. */
  readonly link: string | undefined
  /** The real path the first link leads to. */
  readonly linkTarget: string | undefined
}

/**
 * The links of one command's path values, each resolved once, and one disk fact for them all:
 * the command's verdict holds while every value resolves as it did.
 */
export class LinkLookup {
  readonly #workspace: WorkspaceOnDisk
  readonly #first: string
  // Made at the first value resolved: most commands name none.
  #resolver: Resolve | undefined
  readonly #asked = new Map<string, string>()

  constructor(workspace: WorkspaceOnDisk, scope: PathScope) {
    this.#workspace = workspace
    this.#first = scope.roots[0] ?? '/'
  }

  /** The scope a real path is judged against. */
  get realScope(): PathScope {
    return this.#workspace.realScope
  }

  /**
   * The real target of a value whose lexical absolute path is `lexical`, when a symbolic link
   * makes it another path than the lexical one below its root's real path; undefined when no
   * link does (or it lies in no root that exists). With `followLast` false (a program that
   * removes a link rather than what it leads to) the last component is not followed.
   */
  linkedTarget(value: string, lexical: string, followLast = true): LinkedTarget | undefined {
    const expected = this.#expected(lexical)
    if (expected === undefined) return undefined
    // Joined without normalising: `..` applies after links are followed, as the kernel does.
    const raw = value.startsWith('/') ? value : `${this.#first}/${value}`
    this.#resolver ??= createResolver(this.#workspace.fs, this.#workspace.roots)
    const resolve = this.#resolver
    const resolution = resolveValue(resolve, raw, followLast)
    this.#asked.set(followLast ? raw : `${raw}\0`, answerOf(resolution))
    if (resolution.ok && resolution.real === expected) return undefined
    const root = [...this.#workspace.roots.keys()].find((entry) => isWithin(entry, lexical))
    const link = firstLinkOnWay(this.#workspace.fs, raw, root)
    const target = link === undefined ? undefined : resolve(link)
    return {
      resolution,
      link: link === undefined ? undefined : JSON.stringify(this.#shown(link)),
      linkTarget: target?.ok === true ? target.real : undefined,
    }
  }

  /** Notes one disk fact for every value resolved so far, when there is any. */
  noteFact(): void {
    if (this.#asked.size === 0) return
    const asked = [...this.#asked]
    const { fs, roots } = this.#workspace
    const ask = () => {
      const resolve = createResolver(fs, roots)
      return asked.every(([key, answer]) => {
        const followLast = !key.endsWith('\0')
        const raw = followLast ? key : key.slice(0, -1)
        return answerOf(resolveValue(resolve, raw, followLast)) === answer
      })
    }
    noteDiskConsulted(ask, true)
  }

  // A link's path as a command names it: relative to the first root when inside it.
  #shown(link: string): string {
    const root = this.#first
    return root !== '/' && link.startsWith(`${root}/`) ? link.slice(root.length + 1) : link
  }

  #expected(lexical: string): string | undefined {
    for (const [root, real] of this.#workspace.roots) {
      if (!isWithin(root, lexical)) continue
      const rest = lexical.slice(root === '/' ? 0 : root.length)
      return real === '/' ? rest || '/' : `${real}${rest}`
    }
    return undefined
  }
}

// A path, or with `followLast` false the link it names itself, in its folder's real path.
function resolveValue(resolve: Resolve, raw: string, followLast: boolean): Resolution {
  const slash = raw.lastIndexOf('/')
  const name = raw.slice(slash + 1)
  if (followLast || slash <= 0 || name === '' || name === '.' || name === '..') return resolve(raw)
  const folder = resolve(raw.slice(0, slash))
  if (!folder.ok) return folder
  return { ok: true, real: folder.real === '/' ? `/${name}` : `${folder.real}/${name}` }
}

function answerOf(resolution: Resolution): string {
  return resolution.ok ? resolution.real : `\0${resolution.reason}`
}
