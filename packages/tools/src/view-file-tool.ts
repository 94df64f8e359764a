import { constants } from 'node:fs'
import type { PlanCompiler, ToolFunction } from '@plan/core'
import { checkDescriptor, openChecked } from './opened-path.js'
import { realPathArgument, refuse, stringArgument } from './tool-input.js'

/** Options of the `view_file` reference tool. */
export interface ViewFileOptions {
  /** Most bytes returned; the rest is cut off and `truncated` is true. Default 1 MiB. */
  readonly maxBytes?: number
}

/** What `view_file` returns. */
export interface ViewFileOutput {
  readonly content: string
  /** Size of the file in bytes. */
  readonly size: number
  readonly truncated: boolean
}

/**
 * Creates `view_file({ file })`: reads a regular file inside the workspace as UTF-8, up to
 * `maxBytes`. The path is checked on disk first (links resolved), the file is opened
 * without following a last-moment link, and the opened descriptor's real path is checked
 * again before reading; folders, devices and pipes are refused.
 */
export function createViewFileTool(
  compiler: PlanCompiler,
  options: ViewFileOptions = {},
): ToolFunction {
  const maxBytes = options.maxBytes ?? 1024 * 1024
  return async (args, context): Promise<ViewFileOutput> => {
    const real = await realPathArgument(
      compiler,
      'view_file',
      stringArgument('view_file', args, 'file'),
      'file',
      'read',
    )
    context?.signal?.throwIfAborted()
    const handle = await openChecked(
      'view_file',
      real,
      constants.O_RDONLY | constants.O_NONBLOCK,
      'file',
    )
    try {
      await checkDescriptor(compiler, 'view_file', handle, real, 'file', 'read')
      const stats = await handle.stat()
      if (!stats.isFile())
        refuse('view_file', {
          code: 'path_not_allowed',
          message: `${real} is not a regular file.`,
          path: ['file'],
        })
      const length = Math.min(stats.size, maxBytes)
      const buffer = Buffer.alloc(length)
      let offset = 0
      while (offset < length) {
        const { bytesRead } = await handle.read(buffer, offset, length - offset, offset)
        if (bytesRead === 0) break
        offset += bytesRead
      }
      return {
        content: buffer.subarray(0, offset).toString('utf8'),
        size: stats.size,
        truncated: stats.size > maxBytes,
      }
    } finally {
      await handle.close()
    }
  }
}
