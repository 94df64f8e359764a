import { constants, type Dir } from 'node:fs'
import { opendir, realpath } from 'node:fs/promises'
import { posix } from 'node:path'
import type { PlanCompiler, ToolFunction } from '@plan/core'
import { isWithin } from '@plan/core/adapter'
import { checkDescriptor, openChecked } from './opened-path.js'
import { realPathArgument, stringArgument } from './tool-input.js'

/** Options of the `list_files` reference tool. */
export interface ListFilesOptions {
  /** Most entries returned. Default 1000. */
  readonly maxEntries?: number
}

/** One entry of a folder listing. */
export interface FileEntry {
  readonly name: string
  readonly type: 'file' | 'directory' | 'symlink' | 'other'
}

/** What `list_files` returns. */
export interface ListFilesOutput {
  /** Entries sorted by name. */
  readonly entries: readonly FileEntry[]
  /** True when the folder has more than `maxEntries` entries. */
  readonly truncated: boolean
}

/**
 * Creates `list_files({ dir? })`: lists one folder inside the workspace (default: the first
 * root), not recursively, at most `maxEntries` entries; entries the policy denies are left
 * out.
 */
export function createListFilesTool(
  compiler: PlanCompiler,
  options: ListFilesOptions = {},
): ToolFunction {
  const maxEntries = options.maxEntries ?? 1000
  const deny = compiler.policy.scope.deny
  return async (args, context): Promise<ListFilesOutput> => {
    const real = await realPathArgument(
      compiler,
      'list_files',
      stringArgument('list_files', args, 'dir', '.'),
      'dir',
      'read',
    )
    context?.signal?.throwIfAborted()
    const denied = [
      ...deny,
      ...(await Promise.all(deny.map((entry) => realpath(entry).catch(() => entry)))),
    ]
    const handle = await openChecked(
      'list_files',
      real,
      constants.O_RDONLY | constants.O_DIRECTORY,
      'dir',
    )
    const entries: FileEntry[] = []
    let truncated = false
    try {
      const opened = await checkDescriptor(compiler, 'list_files', handle, real, 'dir', 'read')
      const folder = await opendir(opened.via)
      try {
        truncated = await readEntries(folder, opened.path, denied, maxEntries, entries)
      } finally {
        await folder.close().catch(() => {})
      }
    } finally {
      await handle.close()
    }
    entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0))
    return { entries, truncated }
  }
}

/** Reads a folder's entries, minus denied ones, up to `maxEntries`; true when more were left. */
async function readEntries(
  folder: Dir,
  real: string,
  denied: readonly string[],
  maxEntries: number,
  entries: FileEntry[],
): Promise<boolean> {
  for (;;) {
    const entry = await folder.read()
    if (entry === null) return false
    if (denied.some((path) => isWithin(path, posix.join(real, entry.name)))) continue
    if (entries.length >= maxEntries) return true
    const type = entry.isFile()
      ? 'file'
      : entry.isDirectory()
        ? 'directory'
        : entry.isSymbolicLink()
          ? 'symlink'
          : 'other'
    entries.push({ name: entry.name, type })
  }
}
