import { constants } from 'node:fs'
import { type FileHandle, lstat, open, readlink } from 'node:fs/promises'
import type { PathAccess, PlanCompiler } from '@plan/core'
import { errorCode } from '@plan/core/adapter'
import { checkPathOnDisk } from '@plan/core/node'
import { refuse } from './tool-input.js'

/**
 * Opens a checked real path without following a link in its last component; a path that
 * became a link since the check is refused, never followed.
 */
export async function openChecked(
  tool: string,
  path: string,
  flags: number,
  name: string,
): Promise<FileHandle> {
  try {
    return await open(path, flags | constants.O_NOFOLLOW)
  } catch (error) {
    if (errorCode(error) !== 'ELOOP') throw error
    refuse(tool, {
      code: 'path_not_allowed',
      message: `${path} changed into a link after it was checked.`,
      path: [name],
    })
  }
}

/** Where an open file really is, and the path that reaches it through its descriptor. */
export interface OpenedPath {
  /** The real path the descriptor points to. */
  readonly path: string
  /** `/proc/self/fd/N` on Linux (entries of a folder are reached through it), else `path`. */
  readonly via: string
}

/**
 * Checks where an open descriptor really points (`/proc/self/fd/N` on Linux) against the
 * workspace scope, so a folder swapped for a link between the check and the open is caught.
 * Without `/proc`, the descriptor must be the very file that was checked.
 */
export async function checkDescriptor(
  compiler: PlanCompiler,
  tool: string,
  handle: FileHandle,
  checked: string,
  name: string,
  access: PathAccess,
): Promise<OpenedPath> {
  let actual: string | undefined
  try {
    actual = await readlink(`/proc/self/fd/${handle.fd}`)
  } catch {
    actual = undefined
  }
  if (actual === undefined) {
    const [opened, named] = await Promise.all([
      handle.stat(),
      lstat(checked).catch(() => undefined),
    ])
    if (named !== undefined && named.dev === opened.dev && named.ino === opened.ino)
      return { path: checked, via: checked }
    refuse(tool, {
      code: 'path_not_allowed',
      message: `${checked} changed after it was checked.`,
      path: [name],
    })
  }
  const result = actual.startsWith('/')
    ? await checkPathOnDisk(actual, compiler.policy.scope, access)
    : undefined
  if (result === undefined || !result.allowed) {
    refuse(tool, {
      code: result?.allowed === false ? result.issue.code : 'path_not_allowed',
      message: `${checked} now leads to ${actual}, which is not allowed.`,
      path: [name],
    })
  }
  return { path: actual, via: `/proc/self/fd/${handle.fd}` }
}
