import { createIssue } from '../issues/create-issue.js'
import type { IssueCode, PlanIssue } from '../types/plan-issue.js'

/** An issue about a run or one of its steps (no JSON path: it is not about the plan's text). */
export function executionIssue(
  code: IssueCode,
  message: string,
  stepId?: string,
  hint?: string,
): PlanIssue {
  return createIssue(code, message, [], hint, stepId)
}
