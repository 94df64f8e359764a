import { formatIssues } from '../issues/format-issues.js'
import type { PlanIssue } from '../types/plan-issue.js'
import { hasErrorMarker, PlanError } from './plan-error.js'

const marker = Symbol.for('@plan/core.error.policy')

/** Thrown when a policy is not valid; nothing is approved under an invalid policy. */
export class PolicyError extends PlanError {
  constructor(issues: readonly PlanIssue[], options: { cause?: unknown } = {}) {
    super(`Invalid policy:\n${formatIssues(issues)}`, {
      code: 'invalid_policy',
      issues,
      ...options,
    })
    this.name = 'PolicyError'
    Object.defineProperty(this, marker, { value: true })
  }

  /** True for a `PolicyError` from any copy of the package (false for other `PlanError`s). */
  static override isInstance(error: unknown): error is PolicyError {
    return hasErrorMarker(error, marker)
  }
}
