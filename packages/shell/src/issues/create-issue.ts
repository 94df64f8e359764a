import type { IssueCode, PlanIssue } from '../types/plan-issue.js'

/** Builds an issue, leaving out `hint` and `stepId` when they are not given. */
export function createIssue(
  code: IssueCode,
  message: string,
  path: readonly (string | number)[],
  hint?: string,
  stepId?: string,
): PlanIssue {
  const issue: { -readonly [K in keyof PlanIssue]: PlanIssue[K] } = { code, message, path }
  if (stepId !== undefined) issue.stepId = stepId
  if (hint !== undefined) issue.hint = hint
  return issue
}
