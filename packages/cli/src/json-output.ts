import type { PlanIssue } from '@plan/core'
import type { CliWarning } from './missing-roots.js'

/** An issue as `--format json` prints it: absent fields are left out, never `null`. */
export function issueJson(issue: PlanIssue): Record<string, unknown> {
  const { code, stepId, path, message, hint, ...rest } = issue
  return {
    code,
    ...(stepId === undefined ? {} : { stepId }),
    path,
    message,
    ...(hint === undefined ? {} : { hint }),
    ...rest,
  }
}

/** The one JSON document printed for input that cannot be checked (exit 2). */
export function errorJson(
  message: string,
  issues: readonly PlanIssue[],
  warnings: readonly CliWarning[] = [],
): Record<string, unknown> {
  return { approved: false, error: message, issues: issues.map(issueJson), warnings }
}

/** Writes one JSON document and a newline. */
export function writeJson(stream: { write(text: string): unknown }, document: unknown): void {
  stream.write(`${JSON.stringify(document, null, 2)}\n`)
}
