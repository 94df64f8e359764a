import { createIssue, describe, type PlanIssue } from '@plan/shell/common'
import { errorMessage } from '../util/error-message.js'

/** What {@link parsePlanText} read: the plan's value, or why there is none. */
export type PlanText = { readonly plan: unknown } | { readonly issue: PlanIssue }

const HINT = 'Send one JSON document: { "steps": [ { "id", "tool", "args", "depends_on" } ] }.'

/** The value of a plan's JSON text, or an `invalid_plan` issue when it is not a string of JSON. */
export function parsePlanText(text: unknown): PlanText {
  if (typeof text !== 'string') {
    const message = `The plan text must be a string, got ${describe(text)}.`
    return { issue: createIssue('invalid_plan', message, [], 'Pass a parsed plan to validate().') }
  }
  try {
    return { plan: JSON.parse(text) }
  } catch (error) {
    const message = `The plan is not valid JSON: ${errorMessage(error, 200)}.`
    return { issue: createIssue('invalid_plan', message, [], HINT) }
  }
}
