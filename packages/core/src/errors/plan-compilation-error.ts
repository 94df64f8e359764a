import { formatIssues } from '../issues/format-issues.js'
import type { PlanIssue } from '../issues/plan-issue.js'
import { PlanError } from './plan-error.js'

/** Thrown by `compiler.compile` when a plan is rejected; carries every issue found. */
export class PlanCompilationError extends PlanError {
  constructor(issues: readonly PlanIssue[]) {
    super(
      `Plan rejected with ${issues.length} issue${issues.length === 1 ? '' : 's'}:\n${formatIssues(issues)}`,
      {
        issues,
      },
    )
    this.name = 'PlanCompilationError'
  }
}
