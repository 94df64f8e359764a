import { MAX_OUTPUT_BYTES } from '../guard/max-output.js'
import type { ExecutePlanOptions } from './execute-plan-options.js'

const MAX_RETRIES = 10

/** Reads the options of `executePlan`: defaults, clamping, and the policy's deadline. */
export function readExecutionSettings(options: ExecutePlanOptions) {
  return {
    concurrency: Math.max(1, Math.floor(options.concurrency ?? 4) || 1),
    timeoutMs: options.timeoutMs,
    retries: Math.min(MAX_RETRIES, Math.max(0, Math.floor(options.retries ?? 0) || 0)),
    retryDelayMs: Math.max(0, options.retryDelayMs ?? 0),
    failFast: options.failFast ?? true,
    maxOutputBytes: options.maxOutputBytes ?? MAX_OUTPUT_BYTES,
    deadlineMs: options.compiler.policy.policy.budgets.deadlineMs,
    now: options.now ?? Date.now,
  }
}

/** The options of a run with defaults applied and out-of-range values clamped. */
export type ExecutionSettings = Readonly<ReturnType<typeof readExecutionSettings>>
