import { PlanError } from '../errors/plan-error.js'
import type { JsonObject } from '../types/json-value.js'
import type { PlanIssue } from '../types/plan-issue.js'
import type { ToolFunction } from '../types/tool-function.js'
import { executionIssue } from './execution-issue.js'

/** How one tool call ended: its value, or what it threw (with the issue, for a timeout). */
export type CallOutcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: unknown; readonly issue?: PlanIssue }

/**
 * The tool calls in flight: each has its own abort signal and, with a time limit, a timer.
 * A call settles once; whatever the tool does after a timeout or an abort is ignored.
 */
export class RunningCalls {
  readonly #controllers = new Map<string, AbortController>()
  readonly #timers = new Map<string, ReturnType<typeof setTimeout>>()
  readonly #timeoutMs: number | undefined

  constructor(timeoutMs: number | undefined) {
    this.#timeoutMs = timeoutMs
  }

  /** Calls `tool` now (synchronously) and resolves with how the call ended. */
  call(tool: ToolFunction, args: JsonObject, stepId: string): Promise<CallOutcome> {
    const controller = new AbortController()
    this.#controllers.set(stepId, controller)
    return new Promise<CallOutcome>((resolve) => {
      let settled = false
      let timer: ReturnType<typeof setTimeout> | undefined
      const settle = (outcome: CallOutcome) => {
        if (settled) return
        settled = true
        if (timer !== undefined) {
          clearTimeout(timer)
          if (this.#timers.get(stepId) === timer) this.#timers.delete(stepId)
        }
        if (this.#controllers.get(stepId) === controller) this.#controllers.delete(stepId)
        resolve(outcome)
      }
      if (this.#timeoutMs !== undefined) {
        timer = setTimeout(() => this.#timeOut(stepId, controller, settle), this.#timeoutMs)
        this.#timers.set(stepId, timer)
      }
      let returned: unknown
      try {
        returned = tool(args, { signal: controller.signal, stepId })
      } catch (error) {
        settle({ ok: false, error })
        return
      }
      // Settles once; a late resolution or rejection (after a timeout) is absorbed here.
      Promise.resolve(returned).then(
        (value) => settle({ ok: true, value }),
        (error: unknown) => settle({ ok: false, error }),
      )
    })
  }

  /** Aborts every call in flight with `reason`; their late results are the caller's to ignore. */
  abortAll(reason: PlanError): void {
    for (const controller of this.#controllers.values()) controller.abort(reason)
    this.#controllers.clear()
    for (const timer of this.#timers.values()) clearTimeout(timer)
    this.#timers.clear()
  }

  #timeOut(
    stepId: string,
    controller: AbortController,
    settle: (outcome: CallOutcome) => void,
  ): void {
    const issue = executionIssue(
      'step_timeout',
      `Step ${JSON.stringify(stepId)} took longer than ${this.#timeoutMs} ms.`,
      stepId,
      'Make the step smaller or raise timeoutMs.',
    )
    const error = new PlanError(issue.message, { issues: [issue] })
    controller.abort(error)
    settle({ ok: false, error, issue })
  }
}
