import type { PlanIssue } from '@plan/core'
import { formatPath, lastWordText, runEndedText } from '@plan/core/adapter'

/**
 * The issue's location within the call, as every source gives it: a turn's plan says
 * `steps[i].args.file`, a live call's check and a tool's own refusal say `file`; all read `file`.
 */
function callPath(path: readonly (string | number)[]): readonly (string | number)[] {
  const inCall = path[0] === 'steps' && typeof path[1] === 'number' ? path.slice(2) : path
  return inCall[0] === 'args' && inCall.length > 1 ? inCall.slice(1) : inCall
}

/** One line per issue, for the model: `- code at file: message Hint: hint`. */
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
