import { createIssue, type IssueCode, type PlanIssue } from '@plan/shell/common'
import { errorMessage } from '../util/error-message.js'

/** The issue for an input whose reading threw (getter, Proxy trap, revoked Proxy): fail closed. */
export function unreadableIssue(code: IssueCode, what: string, thrown: unknown): PlanIssue {
  return createIssue(
    code,
    `The ${what} cannot be read: ${errorMessage(thrown, 200)}.`,
    [],
    'Send plain JSON data: no getters, proxies, cycles or class instances.',
  )
}
