import { ErrorCode } from '@modelcontextprotocol/sdk/types.js'
import { formatIssues, type PlanIssue } from '@plan/core'
import { refusalText } from '@plan/core/adapter'
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

/** The JSON-RPC error a request made as a task gets, unsent, with its issue's code, location and hint. */
export interface TaskRefusal {
  readonly code: number
  readonly message: string
  readonly data: { readonly issues: readonly PlanIssue[] }
}

/**
 * Why a task-augmented request (`tools/call`, `resources/read`, `resources/subscribe` with a
 * `task`) is refused unsent: its result would come back later through `tasks/result`, past the
 * record of results that budgets and trust labels rely on. `tool` names a call's tool.
 */
export function taskRefusal(method: string, tool?: string): TaskRefusal {
  const message =
    tool === undefined
      ? `A task-augmented ${method} request was not sent: its content would come back later through tasks/result, past the record of what resource reads returned.`
      : `@plan does not guard task-based tool calls; the call to "${tool}" was not sent. Call the tool without a task.`
  const hint =
    tool === undefined ? `Send ${method} without a task.` : 'Call the tool without a task.'
  return {
    code: ErrorCode.InvalidRequest,
    message,
    data: { issues: [{ code: 'task_not_guarded', message, path: ['params', 'task'], hint }] },
  }
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
