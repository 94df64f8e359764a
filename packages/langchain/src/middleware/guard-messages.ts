import type { PlanIssue } from '@plan/core'
import { formatPath } from '@plan/core/internal'

/** Drops the `steps[i]` prefix of an issue found in a turn's plan, so the path reads `args.file`. */
function callPath(path: readonly (string | number)[]): readonly (string | number)[] {
  return path[0] === 'steps' && typeof path[1] === 'number' ? path.slice(2) : path
}

/** One line per issue, for the model: `- code at args.file: message Hint: hint`. */
export function describeIssues(issues: readonly PlanIssue[]): string {
  return issues
    .map((issue) => {
      const path = callPath(issue.path)
      const where = path.length === 0 ? '' : ` at ${formatPath(path)}`
      const hint = issue.hint === undefined ? '' : ` Hint: ${issue.hint}`
      return `- ${issue.code}${where}: ${issue.message}${hint}`
    })
    .join('\n')
}

/** The text shown when the guard ends the run. */
export function endText(issues: readonly PlanIssue[]): string {
  return `@plan ended the run: no further tool call will run.\n${describeIssues(issues)}`
}

/** What the model reads on its last call after the guard stopped the run. */
export function lastWordText(issues: readonly PlanIssue[]): string {
  return `@plan stopped this run; no tool will run any more.\n${describeIssues(issues)}\nTell the user what was done, what is left, and why the run stopped.`
}
