import { PlanError, type PlanIssue } from '@plan/core'

const marker = Symbol.for('@plan/sandbox.error')

/**
 * Thrown when a command cannot run inside the sandbox: the sandbox program is missing, the
 * system cannot create it or enforce a limit, or the request is invalid or outside the policy.
 * Its issue code is `sandbox_unavailable` or `sandbox_failed` (or, for a refused request,
 * `invalid_configuration`, `invalid_arguments` or a `path_` code); nothing ran.
 */
export class SandboxError extends PlanError {
  constructor(issue: PlanIssue, options: { cause?: unknown } = {}) {
    super(`sandbox: ${issue.message}`, { issues: [issue], ...options })
    this.name = 'SandboxError'
    Object.defineProperty(this, marker, { value: true })
  }

  /** True for any `SandboxError`, from any copy of the package. */
  static override isInstance(error: unknown): error is SandboxError {
    return (
      typeof error === 'object' &&
      error !== null &&
      (error as Record<symbol, unknown>)[marker] === true
    )
  }
}
