import { formatIssues, type PlanIssue, refusalText } from '@plan/core'
import { shownUri } from './resource-target.js'

/** The tool result a refused call is answered with: the issues and hints, as text for the model. */
export interface DenialResult {
  [key: string]: unknown
  readonly content: { type: 'text'; text: string }[]
  readonly isError: true
}

/**
 * The text a model reads when a call is refused — what was wrong, where, what to do, and what
 * is allowed instead (`allowed`, from `allowedText` in `@plan/core`) — worded as in every
 * `@plan` adapter (`refusalText`).
 */
export function denialText(tool: string, issues: readonly PlanIssue[], allowed?: string): string {
  return refusalText({ tool, issues, allowed })
}

/**
 * A `tools/call` result with `isError: true` carrying the issues, so the model can recover;
 * a refusal is never a protocol error that ends the session.
 */
export function denialResult(
  tool: string,
  issues: readonly PlanIssue[],
  allowed?: string,
): DenialResult {
  return { content: [{ type: 'text', text: denialText(tool, issues, allowed) }], isError: true }
}

/**
 * Why a task-based tool call (`tools/call` with a `task`) is refused unsent: its result would
 * come back through `tasks/result`, past the record of results that budgets and trust rely on.
 */
export function taskRefusalText(tool: string): string {
  return `@plan does not guard task-based tool calls; the call to "${tool}" was not sent. Call the tool without a task.`
}

/** The message of the `InvalidRequest` error a task-augmented resource request gets, unsent. */
export function resourceTaskRefusalText(method: string): string {
  return `A task-augmented ${method} request was not sent: its content would come back later through tasks/result, past the record of what resource reads returned.`
}

/**
 * The message of the JSON-RPC error a refused `resources/read` or `resources/subscribe` gets:
 * the issues and hints, and what may be read instead, worded like a tool call's refusal.
 */
export function resourceRefusalText(
  uri: string,
  issues: readonly PlanIssue[],
  allowed: string,
): string {
  const refused = `@plan denied the resource ${shownUri(uri)}; it was not read.\n${formatIssues(issues)}`
  return allowed === '' ? refused : `${refused}\n${allowed}`
}
