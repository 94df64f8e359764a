import type { IssueCode, PlanIssue } from '../types/plan-issue.js'

/** Characters of a command issue's message kept at most: the rest is the refused text. */
export const MAX_MESSAGE_LENGTH = 400
/** Characters of a command issue's hint kept at most. */
export const MAX_HINT_LENGTH = 800

/**
 * Builds an issue of a command check; the caller prefixes the argument's JSON path. A message or
 * hint that quotes a long part of the command is cut, so an issue never echoes more than a
 * bounded amount of the text it refuses.
 */
export function commandIssue(code: IssueCode, message: string, hint: string): PlanIssue {
  return {
    code,
    message: clip(message, MAX_MESSAGE_LENGTH),
    path: [],
    hint: clip(hint, MAX_HINT_LENGTH),
  }
}

function clip(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`
}
