import type { PlanIssue } from '../types/plan-issue.js'

/** Formats a JSON path as `steps[2].args.file`. */
export function formatPath(path: readonly (string | number)[]): string {
  let out = ''
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`
    else if (/^[A-Za-z_$][\w$]*$/.test(segment)) out += out === '' ? segment : `.${segment}`
    else out += `[${JSON.stringify(segment)}]`
  }
  return out === '' ? '(root)' : out
}

/** One line per issue: `code at path (step id): message — hint`. */
export function formatIssues(issues: readonly PlanIssue[]): string {
  return issues
    .map((issue) => {
      const step = issue.stepId === undefined ? '' : ` (step ${JSON.stringify(issue.stepId)})`
      const hint = issue.hint === undefined ? '' : ` Hint: ${issue.hint}`
      return `- ${issue.code} at ${formatPath(issue.path)}${step}: ${issue.message}${hint}`
    })
    .join('\n')
}
