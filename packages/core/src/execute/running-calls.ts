import { PlanError, type PlanIssue } from '@plan/shell/common'
import type { JsonObject } from '../types/json-value.js'
import type { ToolFunction } from '../types/tool-function.js'
import { runIssue } from '../util/run-issue.js'

/** How one tool call ended: its value, or what it threw (with the issue, for a timeout). */
export type CallOutcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: unknown; readonly issue?: PlanIssue }

/**
 * The tool calls in flight, each with its own abort signal and, with a time limit, a timer. A call
 * settles once; what the tool does after a timeout or abort is ignored. Each call holds a reused
 * slot of arrays, not a Map entry: a long-lived Map whose entries come and go every step gets a new
 * table at each growth or shrink, made in the old generation, where it stays until a full GC.
 */
export class RunningCalls {
  /** The controller of the call in each slot; undefined for a free slot. */
  readonly #controllers: (AbortController | undefined)[] = []
  readonly #timers: (ReturnType<typeof setTimeout> | undefined)[] = []
  /** When each slot's call started, counted: calls are aborted in the order they started. */
  readonly #started: number[] = []
  readonly #free: number[] = []
  #calls = 0
  readonly #timeoutMs: number | undefined

  constructor(timeoutMs: number | undefined) {
    this.#timeoutMs = timeoutMs
  }

  /** Calls `tool` now (synchronously) and resolves with how the call ended. */
  call(tool: ToolFunction, args: JsonObject, stepId: string): Promise<CallOutcome> {
    const controller = new AbortController()
    const slot = this.#free.pop() ?? this.#controllers.length
    this.#controllers[slot] = controller
    this.#timers[slot] = undefined
    this.#started[slot] = this.#calls
    this.#calls += 1
    return new Promise<CallOutcome>((resolve) => {
      let settled = false
      let timer: ReturnType<typeof setTimeout> | undefined
      const settle = (outcome: CallOutcome) => {
        if (settled) return
        settled = true
        if (timer !== undefined) clearTimeout(timer)
        // After `abortAll` the slot is no longer this call's.
        if (this.#controllers[slot] === controller) this.#release(slot)
        resolve(outcome)
      }
      if (this.#timeoutMs !== undefined) {
        timer = setTimeout(() => this.#timeOut(stepId, controller, settle), this.#timeoutMs)
        this.#timers[slot] = timer
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

  #release(slot: number): void {
    this.#controllers[slot] = undefined
    this.#timers[slot] = undefined
    this.#free.push(slot)
  }

  /** Aborts every call in flight with `reason`; their late results are the caller's to ignore. */
  abortAll(reason: PlanError): void {
    const slots: number[] = []
    for (let slot = 0; slot < this.#controllers.length; slot += 1)
      if (this.#controllers[slot] !== undefined) slots.push(slot)
    slots.sort((left, right) => (this.#started[left] ?? 0) - (this.#started[right] ?? 0))
    const controllers = slots.map((slot) => this.#controllers[slot])
    const timers = this.#timers.splice(0)
    this.#controllers.length = 0
    this.#started.length = 0
    this.#free.length = 0
    for (const controller of controllers) controller?.abort(reason)
    for (const timer of timers) if (timer !== undefined) clearTimeout(timer)
  }

  #timeOut(
    stepId: string,
    controller: AbortController,
    settle: (outcome: CallOutcome) => void,
  ): void {
    const issue = runIssue(
      'step_timeout',
      `Step ${JSON.stringify(stepId)} took longer than ${this.#timeoutMs} ms.`,
      'Make the step smaller or raise timeoutMs.',
      stepId,
    )
    const error = new PlanError(issue.message, { issues: [issue] })
    controller.abort(error)
    settle({ ok: false, error, issue })
  }
}
