import { createIssue, type IssueCode, type PlanIssue } from '@plan/shell/common'

/** An issue about a run or one of its steps (no JSON path: it is not about the plan's text). */
export function executionIssue(
  code: IssueCode,
  message: string,
  stepId?: string,
  hint?: string,
): PlanIssue {
  return createIssue(code, message, [], hint, stepId)
}
