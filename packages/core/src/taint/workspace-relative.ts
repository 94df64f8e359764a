import { isWithin } from '../checks/path-scope.js'
import { posix } from '../util/posix-path.js'

/** The path relative to the workspace root that holds it, `/`-separated; undefined outside. */
export function workspaceRelative(value: string, roots: readonly string[]): string | undefined {
  const first = roots[0]
  if (first === undefined) return undefined
  const absolute = posix.resolve(first, value)
  for (const candidate of roots) {
    const root = posix.normalize(candidate).replace(/\/+$/u, '') || '/'
    if (absolute === root) return ''
    if (isWithin(root, absolute)) return absolute.slice(root === '/' ? 1 : root.length + 1)
  }
  return undefined
}
