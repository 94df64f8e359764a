import type { IssueCode, PlanIssue } from '../types/plan-issue.js'

/** Builds an issue of a command check; the caller prefixes the argument's JSON path. */
export function commandIssue(code: IssueCode, message: string, hint: string): PlanIssue {
  return { code, message, path: [], hint }
}
