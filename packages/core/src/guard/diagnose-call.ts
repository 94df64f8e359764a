import { canonicalJson } from '@plan/json'
import type { PlanIssue } from '@plan/shell/common'
import type { CompiledStep } from '../types/compiled-plan.js'
import type { JsonObject, JsonValue } from '../types/json-value.js'
import { runIssue } from '../util/run-issue.js'
import { interruptedCallIssue } from './interrupted-call.js'
import type { RunState } from './run-state.js'

// The model-facing text of a refused call: what is wrong, and what to do instead.

function quote(value: string, limit = 200): string {
  return value.length > limit ? `${value.slice(0, limit)}…` : value
}

function readyNow(run: RunState, none: string): string {
  const tools = [...new Set([...run.ready.keys()].map((id) => run.step(id)?.tool ?? ''))].filter(
    Boolean,
  )
  return tools.length === 0 ? none : `Ready now: ${tools.join(', ')}.`
}

/** Why `step` waits; with `tool`, as the reason none of the planned calls of `tool` is ready. */
function waitsFor(run: RunState, step: CompiledStep, tool?: string): PlanIssue {
  const unmet = run.unmetDependencies(step)
  return runIssue(
    'step_not_ready',
    tool === undefined
      ? `Step ${JSON.stringify(step.id)} waits for ${unmet.map((id) => JSON.stringify(id)).join(', ')}.`
      : `The planned ${JSON.stringify(tool)} calls are not ready; step ${JSON.stringify(step.id)} waits for ${unmet.join(', ')}.`,
    `Run ${unmet.join(', ')} first.`,
    step.id,
  )
}

/** Why a done or running `step` cannot run a call (`thisCall`: the very call it ran or runs). */
function ranOrRunning(run: RunState, step: CompiledStep, thisCall: boolean) {
  const state = run.status.get(step.id)
  if (state === 'done')
    return runIssue(
      'step_already_done',
      `Step ${JSON.stringify(step.id)} ${thisCall ? 'already ran this call' : 'has already run'}.`,
      'Use its result instead of calling again.',
      step.id,
    )
  if (state !== 'running') return undefined
  if (run.interrupted.has(step.id)) return interruptedCallIssue(step.id, step.tool)
  return runIssue(
    'step_in_progress',
    `Step ${JSON.stringify(step.id)} is running ${thisCall ? 'this call ' : ''}now.`,
    'Wait for its result.',
    step.id,
  )
}

function ended(step: CompiledStep, state: 'failed' | 'skipped'): PlanIssue {
  return runIssue(
    'step_not_ready',
    `Step ${JSON.stringify(step.id)} ${state === 'failed' ? 'failed' : 'was skipped'}; it will not run in this plan.`,
    'Submit a new plan to try again.',
    step.id,
  )
}

/** True when `live` equals `planned`, any `$ref` in `planned` matching anything. */
export function matchesWithReferences(planned: JsonValue, live: JsonValue): boolean {
  if (typeof planned !== 'object' || planned === null) return planned === live
  if (Array.isArray(planned)) {
    return (
      Array.isArray(live) &&
      planned.length === live.length &&
      planned.every((item, index) => matchesWithReferences(item, live[index] as JsonValue))
    )
  }
  if (Object.hasOwn(planned, '$ref')) return true
  if (typeof live !== 'object' || live === null || Array.isArray(live)) return false
  const keys = Object.keys(planned)
  if (keys.length !== Object.keys(live).length) return false
  return keys.every(
    (key) =>
      Object.hasOwn(live, key) &&
      matchesWithReferences(planned[key] as JsonValue, live[key] as JsonValue),
  )
}

/** A step of `tool` that already ran (or runs) exactly this call (`args`, key `key`). */
function alreadyRan(
  run: RunState,
  candidates: readonly CompiledStep[],
  args: JsonObject,
  key: string,
) {
  for (const step of candidates) {
    // A planned call's key is made again only for arguments that may be its own.
    if (run.ranPlannedCall(step.id) && !matchesWithReferences(step.args, args)) continue
    const found = run.ranKey(step.id) === key ? ranOrRunning(run, step, true) : undefined
    if (found !== undefined) return found
  }
  return undefined
}

/** A step planned with these arguments that is not ready (it waits, failed or was skipped). */
function notReady(run: RunState, candidates: readonly CompiledStep[], args: JsonObject) {
  for (const step of candidates) {
    const state = run.status.get(step.id)
    if (state === 'pending' && !run.ready.has(step.id) && matchesWithReferences(step.args, args))
      return waitsFor(run, step)
    if ((state === 'failed' || state === 'skipped') && matchesWithReferences(step.args, args))
      return ended(step, state)
  }
  return undefined
}

/** Explains why a call that matches no ready step is refused. */
export function diagnoseCall(
  run: RunState,
  tool: string,
  args: JsonObject,
  key: string,
): PlanIssue {
  const candidates = run.stepsOf(tool)
  if (candidates.length === 0) {
    return runIssue(
      'call_not_in_plan',
      `The approved plan has no call of ${JSON.stringify(tool)}.`,
      readyNow(run, 'No step is ready; submit a new plan if more work is needed.'),
    )
  }
  const found = alreadyRan(run, candidates, args, key) ?? notReady(run, candidates, args)
  if (found !== undefined) return found
  const readyCandidates = candidates.filter((step) => run.ready.get(step.id)?.args !== undefined)
  if (readyCandidates.length > 0) {
    const planned = readyCandidates
      .slice(0, 3)
      .map((step) => `${step.id}: ${quote(canonicalJson(run.ready.get(step.id)?.args))}`)
      .join('; ')
    return runIssue(
      'arguments_differ',
      `The arguments of this ${JSON.stringify(tool)} call differ from every ready planned call.`,
      `Call ${tool} with exactly the planned arguments: ${planned}.`,
      readyCandidates.length === 1 ? readyCandidates[0]?.id : undefined,
    )
  }
  const waiting = candidates.find(
    (step) => run.status.get(step.id) === 'pending' && !run.ready.has(step.id),
  )
  if (waiting !== undefined) return waitsFor(run, waiting, tool)
  return runIssue(
    'call_not_in_plan',
    `Every planned call of ${JSON.stringify(tool)} has already run.`,
    readyNow(run, 'Submit a new plan if more work is needed.'),
  )
}

/** Why the selected `step` cannot run this call of `tool` (key `key`), or undefined when it can. */
export function checkSelectedStep(
  run: RunState,
  step: CompiledStep,
  tool: string,
  key: string,
): PlanIssue | undefined {
  if (step.tool !== tool) {
    return runIssue(
      'call_not_in_plan',
      `Step ${JSON.stringify(step.id)} calls ${JSON.stringify(step.tool)}, not ${JSON.stringify(tool)}.`,
      `Call ${step.tool} for this step.`,
      step.id,
    )
  }
  const found = ranOrRunning(run, step, false)
  if (found !== undefined) return found
  const state = run.status.get(step.id)
  if (state === 'failed' || state === 'skipped') return ended(step, state)
  const entry = run.ready.get(step.id)
  if (entry === undefined) return waitsFor(run, step)
  if (entry.issue !== undefined) return entry.issue
  if (entry.key !== key) {
    return runIssue(
      'arguments_differ',
      `The arguments differ from the planned arguments of step ${JSON.stringify(step.id)}.`,
      `Call ${step.tool} with exactly: ${quote(canonicalJson(entry.args))}.`,
      step.id,
    )
  }
  return undefined
}
