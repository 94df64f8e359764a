import type { CommandRunResult } from '@plan/core'
import { collectProcess, type ProcessOutcome } from '@plan/core/node'
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
  // bubblewrap leads its own process group; the sandbox dies with it (--die-with-parent).
  let outcome: ProcessOutcome
  try {
    outcome = await collectProcess(child, limits)
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
  // A program that is not found is the command's result; any other bwrap error means no sandbox.
  if (
    outcome.exitCode === 1 &&
    stderr.startsWith('bwrap: ') &&
    !stderr.startsWith('bwrap: execvp ')
  ) {
    throw new SandboxError({
      code: 'sandbox_failed',
      message: `The sandbox could not be set up: ${stderr.trim().slice(0, 500)}`,
      path: [],
      hint: 'Check that unprivileged user namespaces are enabled (sysctl kernel.unprivileged_userns_clone=1) and that bubblewrap works: bwrap --ro-bind / / true',
    })
  }
  return {
    ...outcome,
    violations: [...(proxy?.violations ?? []), ...violationsFromStderr(stderr)],
  }
}
