import { hashJsonOrNull } from '@plan/json'
import { errorMessage } from '../util/error-message.js'
import { freezeJson, outputToJson } from '../util/json-copy.js'
import { toolFacts } from '../util/tool-facts.js'
import { labelCommandWrites } from './command-writes.js'
import { errorOutput } from './error-output.js'
import type { GuardParts } from './guard-parts.js'
import { MAX_OUTPUT_BYTES } from './max-output.js'

/** `PlanGuard.complete`: a running step is done; its output is labelled, kept and audited. */
export function completeStep(parts: GuardParts, stepId: string, output: unknown): void {
  const { run, flow, tainted } = parts
  if (run.status.get(stepId) !== 'running') return
  const json = outputToJson(output, MAX_OUTPUT_BYTES)
  const finished = run.knownStep(stepId)
  run.complete(stepId, json.ok ? freezeJson(json.value) : undefined)
  // Before its own output joins the context: what the command wrote carries what it was given.
  if (finished !== undefined && json.ok) labelCommandWrites(parts, finished, json.value)
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
  const failed = run.knownStep(stepId)
  const previous = run.fail(stepId)
  if (previous === undefined) return
  flow.commands.ended(stepId)
  // An error of a tool that ran is output too: its text carries the tool's label.
  if (previous === 'running' && failed !== undefined)
    flow.record(failed, errorOutput(error), tainted.get(stepId) ?? true)
  tainted.delete(stepId)
  parts.record({ type: 'step_failed', stepId, error: errorMessage(error, 500) })
}
