import type { JsonValue } from '../types/json-value.js'
import { hashJsonOrNull } from '../util/canonical-json.js'
import { freezeJson, outputToJson } from '../util/json-copy.js'
import type { GuardParts } from './guard-parts.js'
import { toolFacts } from './tool-facts.js'

/** Largest step output the guard keeps for references, as JSON text. */
export const MAX_OUTPUT_BYTES = 16 * 1024 * 1024

function describeError(error: unknown): string {
  try {
    const text = error instanceof Error ? error.message : String(error)
    return text.length > 500 ? `${text.slice(0, 500)}…` : text
  } catch {
    return 'an unprintable error'
  }
}

/**
 * What a model may be shown of a tool's error, as it enters the trust labels: the message whole
 * (an adapter shows it all, not the audit's 500 characters) and the error's own enumerable
 * fields, such as an MCP error's `data`, which a proxy forwards to the client. A thrown value
 * that is not an error is taken as an output is; undefined (as for output that is not JSON)
 * when it cannot be read.
 */
function errorOutput(error: unknown): JsonValue | undefined {
  let message: unknown
  try {
    message = typeof error === 'object' && error !== null ? (error as Error).message : undefined
  } catch {
    return undefined
  }
  const fields = outputToJson(error, MAX_OUTPUT_BYTES)
  if (typeof message !== 'string') return fields.ok ? fields.value : undefined
  if (message.length > MAX_OUTPUT_BYTES) return undefined
  // Fields that are not JSON (a client's request objects) are not what a model is shown.
  return fields.ok && isNonEmptyObject(fields.value) ? [message, fields.value] : message
}

function isNonEmptyObject(value: JsonValue): boolean {
  return typeof value === 'object' && value !== null && Object.keys(value).length > 0
}

/** `PlanGuard.complete`: a running step is done; its output is labelled, kept and audited. */
export function completeStep(parts: GuardParts, stepId: string, output: unknown): void {
  const { run, flow, tainted } = parts
  if (run.status.get(stepId) !== 'running') return
  const json = outputToJson(output, MAX_OUTPUT_BYTES)
  const finished = run.knownSteps.get(stepId)
  run.complete(stepId, json.ok ? freezeJson(json.value) : undefined)
  const trust =
    finished === undefined
      ? 'untrusted'
      : flow.record(finished, json.ok ? json.value : undefined, tainted.get(stepId) ?? true)
  tainted.delete(stepId)
  // A successful write changes what the same call will do: repeats count from zero again.
  if (finished !== undefined && toolFacts(parts.compiler.policy.tools.get(finished.tool)).writes)
    parts.budgets.forgetRepeats()
  if (!parts.audit.enabled) return
  const outputHash = json.ok ? hashJsonOrNull(json.value) : null
  parts.record({ type: 'step_completed', stepId, outputHash, trust })
}

/** `PlanGuard.fail`: a running or pending step failed; its dependents are skipped. */
export function failStep(parts: GuardParts, stepId: string, error: unknown): void {
  const { run, flow, tainted } = parts
  const failed = run.knownSteps.get(stepId)
  const previous = run.fail(stepId)
  if (previous === undefined) return
  // An error of a tool that ran is output too: its text carries the tool's label.
  if (previous === 'running' && failed !== undefined)
    flow.record(failed, errorOutput(error), tainted.get(stepId) ?? true)
  tainted.delete(stepId)
  parts.record({ type: 'step_failed', stepId, error: describeError(error) })
}
