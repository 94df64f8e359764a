import { PlanError } from '../errors/plan-error.js'
import { createIssue } from '../issues/create-issue.js'

/** The error for a plan or state the guard refuses to run (forged, edited, malformed). */
export function refusedPlan(message: string): PlanError {
  return new PlanError(message, {
    issues: [
      createIssue(
        'invalid_plan',
        message,
        [],
        'Guard only plans this policy approved, with the state the guard saved.',
      ),
    ],
  })
}
