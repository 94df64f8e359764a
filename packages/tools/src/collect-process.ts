import type { ChildProcess } from 'node:child_process'

/** Limits of {@link collectProcess}. */
export interface ProcessLimits {
  readonly timeoutMs: number
  /** Most bytes kept of stdout and of stderr each; the process group is killed past it. */
  readonly maxOutputBytes: number
  /** Written to a piped stdin, which is then closed (at once, without it). */
  readonly stdin?: string | Uint8Array
  readonly signal?: AbortSignal
  /**
   * Ends the process and everything it started, on timeout, abort and overflow. Default: SIGKILL
   * to its process group.
   */
  readonly kill?: () => void
}

/** How a process ended, with its capped output. */
export interface ProcessOutcome {
  readonly exitCode: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
  readonly truncated: boolean
  readonly timedOut: boolean
}

/**
 * Waits for a process that leads its own process group (spawned `detached`, stdout and stderr
 * piped), keeping at most `maxOutputBytes` of each stream. The whole group is killed (or
 * `limits.kill` called) on timeout, on abort and on overflow, and the group is killed when the
 * process exits (nothing it started outlives it). Rejects when the process cannot start.
 */
export function collectProcess(
  child: ChildProcess,
  limits: ProcessLimits,
): Promise<ProcessOutcome> {
  return new Promise<ProcessOutcome>((resolve, reject) => {
    const chunks: { out: Buffer[]; err: Buffer[] } = { out: [], err: [] }
    const size = { out: 0, err: 0 }
    let truncated = false
    let timedOut = false
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
      } catch {
        // The group is already gone.
      }
    }
    const kill = limits.kill ?? killGroup
    const collect = (key: 'out' | 'err') => (chunk: Buffer) => {
      const room = limits.maxOutputBytes - size[key]
      if (room <= 0) return
      if (chunk.length > room) {
        chunks[key].push(chunk.subarray(0, room))
        size[key] = limits.maxOutputBytes
        truncated = true
        kill()
        return
      }
      chunks[key].push(chunk)
      size[key] += chunk.length
    }
    child.stdout?.on('data', collect('out'))
    child.stderr?.on('data', collect('err'))
    if (child.stdin !== null) {
      child.stdin.on('error', () => {})
      child.stdin.end(limits.stdin === undefined ? undefined : Buffer.from(limits.stdin))
    }
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
    child.on('exit', killGroup)
    child.on('error', (error) => {
      done()
      reject(error)
    })
    child.on('close', (exitCode, signal) => {
      done()
      resolve({
        exitCode,
        signal,
        stdout: Buffer.concat(chunks.out).toString('utf8'),
        stderr: Buffer.concat(chunks.err).toString('utf8'),
        truncated,
        timedOut,
      })
    })
  })
}
