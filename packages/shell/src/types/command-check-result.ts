import type { PlanIssue } from './plan-issue.js'

/** The result of a command check: the argv to run without a shell, or why it was refused. */
export type CommandCheckResult =
  | { readonly allowed: true; readonly argv: readonly string[] }
  | {
      readonly allowed: false
      /** The first problem found. */
      readonly issue: PlanIssue
      /** Every problem found. */
      readonly issues: readonly PlanIssue[]
    }
