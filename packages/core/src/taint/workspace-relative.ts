import { isWithin, posix } from '@plan/shell/common'

/** What an absolute path that is not its own resolution holds: `//`, a `.` or `..` segment, a final `/`. */
const UNRESOLVED = /\/\/|\/\.\.?(?:\/|$)|\/$/u

/** `posix.resolve(path)` of an absolute path, without the work for one that is its own. */
function resolvedAbsolute(path: string): string {
  return UNRESOLVED.test(path) ? posix.resolve(path) : path
}

/** The path relative to the workspace root that holds it, `/`-separated; undefined outside. */
export function workspaceRelative(value: string, roots: readonly string[]): string | undefined {
  const first = roots[0]
  if (first === undefined) return undefined
  const absolute = posix.isAbsolute(value) ? resolvedAbsolute(value) : posix.resolve(first, value)
  for (const candidate of roots) {
    // a resolved absolute path ends in `/` only when it is `/`
    const root = posix.isAbsolute(candidate)
      ? resolvedAbsolute(candidate)
      : posix.normalize(candidate).replace(/\/+$/u, '') || '/'
    if (absolute === root) return ''
    if (isWithin(root, absolute)) return absolute.slice(root === '/' ? 1 : root.length + 1)
  }
  return undefined
}
