import { formatIssues, type PlanIssue } from '@plan/core'

/** The tool result a refused call is answered with: the issues and hints, as text for the model. */
export interface DenialResult {
  [key: string]: unknown
  readonly content: { type: 'text'; text: string }[]
  readonly isError: true
}

/** The text a model reads when a call is refused: what was wrong, where, and what to do. */
export function denialText(tool: string, issues: readonly PlanIssue[]): string {
  return `@plan denied the call to "${tool}"; it did not run.\n${formatIssues(issues)}`
}

/**
 * A `tools/call` result with `isError: true` carrying the issues, so the model can recover;
 * a refusal is never a protocol error that ends the session.
 */
export function denialResult(tool: string, issues: readonly PlanIssue[]): DenialResult {
  return { content: [{ type: 'text', text: denialText(tool, issues) }], isError: true }
}
