import { randomBytes } from 'node:crypto'
import { lstat, mkdir, open, rename, unlink } from 'node:fs/promises'
import { posix } from 'node:path'
import type { PlanCompiler } from '../compile/plan-compiler.js'
import type { ToolFunction } from '../execute/execute-plan.js'
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
 * half-written one. Replacing a file keeps its permission bits; missing folders are created.
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
    let mode: number | undefined
    try {
      const stats = await lstat(real)
      if (!stats.isFile())
        refuse('write_file', {
          code: 'path_not_allowed',
          message: `${real} exists and is not a regular file.`,
          path: ['file'],
        })
      mode = stats.mode & 0o7777
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
    const folder = posix.dirname(real)
    await mkdir(folder, { recursive: true })
    const temporary = posix.join(
      folder,
      `.${posix.basename(real)}.${randomBytes(6).toString('hex')}.tmp`,
    )
    const handle = await open(temporary, 'wx', 0o666)
    let renamed = false
    try {
      await handle.writeFile(content, 'utf8')
      if (mode !== undefined) await handle.chmod(mode)
      await handle.sync()
      await handle.close()
      context?.signal?.throwIfAborted()
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
}
