import { realpathSync } from 'node:fs'
import { posix } from 'node:path'
import { isWithin } from '@plan/core/adapter'

/** The real path of `path`, or `path` itself when it does not resolve. */
export function realOrSelf(path: string): string {
  try {
    return realpathSync.native(path)
  } catch {
    return path
  }
}

/**
 * A search PATH without the entries the agent could plant a program in: only absolute entries
 * outside every workspace root (compared as written and after resolving links on both sides),
 * so a program written into the workspace is never found by name.
 */
export function safeSearchPath(path: string, roots: readonly string[]): string {
  const blocked = [...roots, ...roots.map(realOrSelf)]
  return path
    .split(':')
    .filter((entry) => posix.isAbsolute(entry))
    .filter(
      (entry) =>
        !blocked.some((root) => isWithin(root, entry) || isWithin(root, realOrSelf(entry))),
    )
    .join(':')
}
