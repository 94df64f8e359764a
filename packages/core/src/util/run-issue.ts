import { createIssue, type IssueCode, type PlanIssue } from '@plan/shell/common'

/** An issue about a call, a step or the run: at no JSON path, as it is not about the plan's text. */
export function runIssue(
  code: IssueCode,
  message: string,
  hint?: string,
  stepId?: string,
): PlanIssue {
  return createIssue(code, message, [], hint, stepId)
}
