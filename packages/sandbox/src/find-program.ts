import { accessSync, constants, statSync } from 'node:fs'
import { posix } from 'node:path'

/** The absolute path of `name` in a PATH-style list, or undefined when it is not there. */
export function findProgram(name: string, searchPath: string): string | undefined {
  for (const folder of searchPath.split(':')) {
    if (!posix.isAbsolute(folder)) continue
    const candidate = posix.join(folder, name)
    try {
      accessSync(candidate, constants.X_OK)
      if (statSync(candidate).isFile()) return candidate
    } catch {
      // Not in this folder.
    }
  }
  return undefined
}
