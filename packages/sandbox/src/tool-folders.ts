import { existsSync, readdirSync } from 'node:fs'
import { posix } from 'node:path'
import { isWithin } from '@plan/core/adapter'
import { realOrSelf } from '@plan/tools'

/** Where a program linked from a bin folder lives: its package's root, else its own folder. */
function programLocation(target: string, toolchain: string): string {
  let folder = posix.dirname(target)
  const own = folder
  while (folder !== '/' && folder !== toolchain && isWithin(toolchain, folder)) {
    if (existsSync(posix.join(folder, 'package.json'))) return folder
    folder = posix.dirname(folder)
  }
  return own
}

/**
 * The host folders to show for one `PATH` entry outside the system folders: the bin folder
 * itself; for each link in it that leads out of it, the real program's location (the package
 * that holds it, such as `lib/node_modules/npm` for `bin/npm`); and the whole toolchain only
 * where the bin folder's parent is a Python virtual environment (`pyvenv.cfg`). Never the
 * parent of a bin folder otherwise, nor a folder that holds `hostHome`: it may be a home folder
 * or hold other projects.
 */
export function toolFolders(
  entry: string,
  visible: readonly string[],
  hostHome: string | undefined,
): string[] {
  const bin = realOrSelf(entry)
  const parent = posix.dirname(bin)
  if (parent !== '/' && existsSync(posix.join(parent, 'pyvenv.cfg'))) return [parent]
  const folders = [bin]
  let names: string[] = []
  try {
    names = readdirSync(bin)
  } catch {
    return folders
  }
  for (const name of names) {
    const target = realOrSelf(posix.join(bin, name))
    if (isWithin(bin, target) || visible.some((folder) => isWithin(folder, target))) continue
    const found = programLocation(target, parent)
    // A folder that holds the home (a link to ~/script) is never shown: the program alone is.
    const holdsHome = found === '/' || (hostHome !== undefined && isWithin(found, hostHome))
    const location = holdsHome ? target : found
    if (!folders.some((folder) => isWithin(folder, location))) folders.push(location)
  }
  return folders
}
