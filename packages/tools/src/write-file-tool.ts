import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { lstat, mkdir, open, rename, unlink } from 'node:fs/promises'
import { posix } from 'node:path'
import type { PlanCompiler, ToolFunction } from '@plan/core'
import { errorCode } from '@plan/core/adapter'
import { checkPathOnDisk } from '@plan/core/node'
import { checkDescriptor, openChecked } from './opened-path.js'
import { realPathArgument, refuse, stringArgument } from './tool-input.js'

/** Options of the `write_file` reference tool. */
export interface WriteFileOptions {
  /** Largest content accepted, in bytes (UTF-8). Default 10 MiB. */
  readonly maxBytes?: number
}

/** What `write_file` returns. */
export interface WriteFileOutput {
  /** Bytes written. */
  readonly bytes: number
  /** True when the file did not exist before. */
  readonly created: boolean
}

/**
 * Creates `write_file({ file, content })`: writes a whole UTF-8 file inside the workspace,
 * atomically. The content goes to a new temporary file in the same folder, is flushed to
 * disk, and is renamed over the target, so readers see the old file or the new one, never a
 * half-written one. The folder is opened and its descriptor's real path checked again, and
 * the file is created and renamed through that descriptor, so a folder swapped for a link
 * after the check is never written through. Replacing a file keeps its permission bits;
 * missing folders are created.
 */
export function createWriteFileTool(
  compiler: PlanCompiler,
  options: WriteFileOptions = {},
): ToolFunction {
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024
  return async (args, context): Promise<WriteFileOutput> => {
    const content = stringArgument('write_file', args, 'content')
    const bytes = Buffer.byteLength(content, 'utf8')
    if (bytes > maxBytes) {
      refuse('write_file', {
        code: 'invalid_arguments',
        message: `The content is ${bytes} bytes (at most ${maxBytes}).`,
        path: ['content'],
      })
    }
    const real = await realPathArgument(
      compiler,
      'write_file',
      stringArgument('write_file', args, 'file'),
      'file',
      'write',
    )
    context?.signal?.throwIfAborted()
    const folder = posix.dirname(real)
    await mkdir(folder, { recursive: true })
    const handle = await openChecked(
      'write_file',
      folder,
      constants.O_RDONLY | constants.O_DIRECTORY,
      'file',
    )
    try {
      const opened = await checkDescriptor(compiler, 'write_file', handle, folder, 'file', 'write')
      const target = posix.join(opened.path, posix.basename(real))
      const checked = await checkPathOnDisk(target, compiler.policy.scope, 'write')
      if (!checked.allowed) refuse('write_file', { ...checked.issue, path: ['file'] })
      return await replaceFile(opened.via, posix.basename(real), content, bytes, context?.signal)
    } finally {
      await handle.close()
    }
  }
}

/**
 * Writes `content` to a new temporary file in `folder` (reached through the checked folder's
 * descriptor) and renames it over `name`, which replaces a link rather than following it.
 */
async function replaceFile(
  folder: string,
  name: string,
  content: string,
  bytes: number,
  signal: AbortSignal | undefined,
): Promise<WriteFileOutput> {
  const real = posix.join(folder, name)
  let mode: number | undefined
  try {
    const stats = await lstat(real)
    if (!stats.isFile())
      refuse('write_file', {
        code: 'path_not_allowed',
        message: `${name} exists and is not a regular file.`,
        path: ['file'],
      })
    mode = stats.mode & 0o7777
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error
  }
  const temporary = posix.join(folder, `.${name}.${randomBytes(6).toString('hex')}.tmp`)
  const handle = await open(
    temporary,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o666,
  )
  let renamed = false
  try {
    await handle.writeFile(content, 'utf8')
    if (mode !== undefined) await handle.chmod(mode)
    await handle.sync()
    await handle.close()
    signal?.throwIfAborted()
    await rename(temporary, real)
    renamed = true
  } finally {
    if (!renamed) {
      await handle.close().catch(() => {})
      await unlink(temporary).catch(() => {})
    }
  }
  return { bytes, created: mode === undefined }
}
