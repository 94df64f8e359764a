import { type CommandRunResult, collectProcess, type ProcessOutcome } from '@plan/tools'
import { CLOSER_FAILED, CLOSER_NAME } from './descriptor-closer.js'
import { limitViolations } from './limit-violations.js'
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
export async function collectSandboxed(
  started: SandboxedChild,
  limits: SandboxRunLimits,
): Promise<CommandRunResult> {
  const { child, proxy } = started
  let outcome: ProcessOutcome
  try {
    outcome = await collectProcess(child, started.end ? { ...limits, kill: started.end } : limits)
  } catch (error) {
    throw new SandboxError(
      {
        code: 'sandbox_unavailable',
        message: `bubblewrap did not start: ${(error as Error).message}`,
        path: [],
      },
      { cause: error },
    )
  }
  const { stderr } = outcome
  // Before anything else runs, whether or not the sandbox was set up.
  const workspace = started.afterCommand?.() ?? []
  failedSetup(outcome.exitCode, stderr, started)
  return {
    ...outcome,
    violations: [
      ...workspace,
      ...(proxy?.violations ?? []),
      ...violationsFromStderr(stderr),
      ...limitViolations(outcome.exitCode, stderr, started.limits),
    ],
  }
}

/**
 * Throws when the descriptor closer (exit code 125, or 126/127 when it cannot start prlimit),
 * prlimit (exit code 1, or 126/127 when it cannot start bubblewrap) or bubblewrap (exit code 1)
 * reported an error of its own: nothing ran. A program that is not found is the command's
 * result, and so is anything a command that bubblewrap reports as run printed.
 */
function failedSetup(exitCode: number | null, stderr: string, started: SandboxedChild): void {
  if (started.commandRan?.() === true) return
  const cannotStart = exitCode === 126 || exitCode === 127
  const own =
    (stderr.startsWith(`${CLOSER_NAME}: `) && (exitCode === CLOSER_FAILED || cannotStart)) ||
    (stderr.startsWith('prlimit: ') && (exitCode === 1 || cannotStart)) ||
    (exitCode === 1 && stderr.startsWith('bwrap: ') && !stderr.startsWith('bwrap: execvp '))
  if (!own) return
  const forkRefused =
    started.limits.processes !== undefined && /Resource temporarily unavailable/.test(stderr)
  throw new SandboxError({
    code: 'sandbox_failed',
    message: `The sandbox could not be set up: ${stderr.trim().slice(0, 500)}`,
    path: forkRefused ? ['limits', 'processes'] : [],
    hint: forkRefused
      ? `The processes limit (${started.limits.processes}) counts every process and thread of this user on the host, and the user already has that many: raise it.`
      : 'Check that unprivileged user namespaces are enabled (sysctl kernel.unprivileged_userns_clone=1) and that bubblewrap works: bwrap --ro-bind / / true',
  })
}
