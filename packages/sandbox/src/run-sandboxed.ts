import type { CommandRunResult } from '@plan/core'
import { SandboxError } from './sandbox-error.js'
import type { SandboxedChild } from './spawn-sandboxed.js'
import { violationsFromStderr } from './stderr-violations.js'

/** How `run` waits for one sandboxed command. */
export interface SandboxRunLimits {
  readonly timeoutMs: number
  readonly maxOutputBytes: number
  /** Written to the program's stdin, which is then closed. Default: nothing (closed at once). */
  readonly stdin?: string | Uint8Array
  /** Kills the command when it aborts. */
  readonly signal?: AbortSignal
}

/** Waits for a sandboxed process, collecting capped output; kills it on timeout, abort or overflow. */
export function collectSandboxed(
  started: SandboxedChild,
  limits: SandboxRunLimits,
): Promise<CommandRunResult> {
  const { child, proxy } = started
  return new Promise<CommandRunResult>((resolve, reject) => {
    const out: Buffer[] = []
    const err: Buffer[] = []
    const size = { out: 0, err: 0 }
    let truncated = false
    let timedOut = false
    // bubblewrap leads its own process group; the sandbox dies with it (--die-with-parent).
    const kill = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
      } catch {
        // Already gone.
      }
    }
    const collect = (chunks: Buffer[], key: 'out' | 'err') => (chunk: Buffer) => {
      const room = limits.maxOutputBytes - size[key]
      if (room <= 0) return
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room))
        size[key] = limits.maxOutputBytes
        truncated = true
        kill()
        return
      }
      chunks.push(chunk)
      size[key] += chunk.length
    }
    child.stdout.on('data', collect(out, 'out'))
    child.stderr.on('data', collect(err, 'err'))
    child.stdin.on('error', () => {})
    child.stdin.end(limits.stdin === undefined ? undefined : Buffer.from(limits.stdin))
    const timer = setTimeout(() => {
      timedOut = true
      kill()
    }, limits.timeoutMs)
    const onAbort = () => kill()
    if (limits.signal?.aborted) kill()
    limits.signal?.addEventListener('abort', onAbort, { once: true })
    const done = () => {
      clearTimeout(timer)
      limits.signal?.removeEventListener('abort', onAbort)
    }
    child.on('error', (error) => {
      done()
      reject(
        new SandboxError(
          {
            code: 'sandbox_unavailable',
            message: `bubblewrap did not start: ${error.message}`,
            path: [],
          },
          { cause: error },
        ),
      )
    })
    child.on('close', (code, signal) => {
      done()
      const stderr = Buffer.concat(err).toString('utf8')
      // A program that is not found is the command's result; any other bwrap error means no sandbox.
      if (code === 1 && stderr.startsWith('bwrap: ') && !stderr.startsWith('bwrap: execvp ')) {
        reject(
          new SandboxError({
            code: 'sandbox_failed',
            message: `The sandbox could not be set up: ${stderr.trim().slice(0, 500)}`,
            path: [],
            hint: 'Check that unprivileged user namespaces are enabled (sysctl kernel.unprivileged_userns_clone=1) and that bubblewrap works: bwrap --ro-bind / / true',
          }),
        )
        return
      }
      resolve({
        exitCode: code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr,
        truncated,
        timedOut,
        violations: [...(proxy?.violations ?? []), ...violationsFromStderr(stderr)],
      })
    })
  })
}
