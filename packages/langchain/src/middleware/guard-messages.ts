import type { PlanIssue } from '@plan/core'
import { formatPath, lastWordText, runEndedText } from '@plan/core/internal'

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

/** The text shown when the guard ends the run (core's words, the same in every adapter). */
export const endText = runEndedText

/** What the model reads on its last call after the guard stopped the run. */
export { lastWordText }
