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

/** The message of whatever a tool threw, without throwing again. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message
  try {
    return String(error)
  } catch {
    return 'an unprintable error'
  }
}
