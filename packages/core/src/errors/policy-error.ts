import { formatIssues } from '../issues/format-issues.js'
import type { PlanIssue } from '../issues/plan-issue.js'
import { PlanError } from './plan-error.js'

/** Thrown when a policy is not valid; nothing is approved under an invalid policy. */
export class PolicyError extends PlanError {
  constructor(issues: readonly PlanIssue[], options: { cause?: unknown } = {}) {
    super(`Invalid policy:\n${formatIssues(issues)}`, { issues, ...options })
    this.name = 'PolicyError'
  }
}
