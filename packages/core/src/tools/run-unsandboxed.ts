import { spawn } from 'node:child_process'
import type { CommandRunner, CommandRunResult } from './command-runner.js'

let warned = false

/**
 * A {@link CommandRunner} without any OS sandbox: the program runs directly (no shell) in its
 * own process group, which is killed on timeout, on abort, on overflow and when the program
 * exits. Only for an explicit `sandbox: 'none'`; it warns once per process.
 */
export function createUnsandboxedRunner(basicEnv: Readonly<Record<string, string>>): CommandRunner {
  if (!warned) {
    warned = true
    process.emitWarning(
      "run_command runs programs without an OS sandbox (sandbox: 'none'); use @plan/sandbox.",
      { code: 'PLAN_SANDBOX_NONE' },
    )
  }
  return (argv, options) =>
    new Promise<CommandRunResult>((resolve, reject) => {
      const [program, ...rest] = argv
      if (program === undefined) throw new TypeError('argv is empty')
      const child = spawn(program, rest, {
        cwd: options.cwd,
        env: { ...basicEnv, ...options.env },
        shell: false,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
      })
      const out: Buffer[] = []
      const err: Buffer[] = []
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
      const collect = (chunks: Buffer[], key: 'out' | 'err') => (chunk: Buffer) => {
        const room = options.maxOutputBytes - size[key]
        if (room <= 0) return
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room))
          size[key] = options.maxOutputBytes
          truncated = true
          killGroup()
          return
        }
        chunks.push(chunk)
        size[key] += chunk.length
      }
      child.stdout.on('data', collect(out, 'out'))
      child.stderr.on('data', collect(err, 'err'))
      const timer = setTimeout(() => {
        timedOut = true
        killGroup()
      }, options.timeoutMs)
      const onAbort = () => killGroup()
      options.signal?.addEventListener('abort', onAbort, { once: true })
      child.on('exit', killGroup)
      child.on('error', (error) => {
        clearTimeout(timer)
        options.signal?.removeEventListener('abort', onAbort)
        reject(error)
      })
      child.on('close', (code, signal) => {
        clearTimeout(timer)
        options.signal?.removeEventListener('abort', onAbort)
        resolve({
          exitCode: code,
          signal,
          stdout: Buffer.concat(out).toString('utf8'),
          stderr: Buffer.concat(err).toString('utf8'),
          truncated,
          timedOut,
          violations: [],
        })
      })
    })
}
