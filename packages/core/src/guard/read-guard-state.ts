import { PlanError } from '../errors/plan-error.js'
import { readUntrustedFlowState } from '../flow/create-untrusted-flow-tracker.js'
import { unreadableIssue } from '../issues/unreadable-issue.js'
import type { CompiledPlan } from '../types/compiled-plan.js'
import type { JsonValue } from '../types/json-value.js'
import type { StepStatus } from '../types/plan-guard.js'
import type { PlanIssue } from '../types/plan-issue.js'
import type { UntrustedFlowState } from '../types/untrusted-flow.js'
import { copyJson } from '../util/json-copy.js'

const STATUSES = new Set<string>(['pending', 'running', 'done', 'failed', 'skipped'])

/** A guard state checked field by field, as entries ready to load into maps. */
export interface GuardStateEntries {
  readonly plan: CompiledPlan | null
  readonly status: readonly (readonly [string, StepStatus])[]
  readonly outputs: readonly (readonly [string, JsonValue])[]
  readonly calls: number
  readonly callsPerTool: readonly (readonly [string, number])[]
  readonly identicalCalls: readonly (readonly [string, number])[]
  readonly seenPlanHashes: readonly string[]
  readonly turns: readonly (readonly [string, number])[]
  readonly denials: number
  readonly deniedRepeats: readonly (readonly [string, number])[]
  readonly replans: number
  readonly startedAt: number
  readonly stopped: PlanIssue | null
  readonly mode: 'plan' | 'turn'
  readonly flow: UntrustedFlowState | undefined
}

function invalid(field: string): never {
  throw new PlanError(`Invalid guard state: ${field}.`, {
    issues: [
      { code: 'state_corrupt', message: `The guard state has an invalid ${field}.`, path: [field] },
    ],
  })
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function count(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) invalid(field)
  return value
}

function counts(value: unknown, field: string): [string, number][] {
  if (value === undefined) return []
  if (!isRecord(value)) invalid(field)
  return Object.keys(value).map((key) => [key, count(value[key], field)])
}

/**
 * Checks a state produced by `snapshot()` (possibly after a trip through JSON) and returns
 * its entries. The plan inside is only shape-checked here; the guard compiles it again.
 */
export function readGuardState(state: unknown): GuardStateEntries {
  try {
    return readGuardStateUnsafely(state)
  } catch (error) {
    if (PlanError.isInstance(error)) throw error
    throw new PlanError('Invalid guard state: it cannot be read.', {
      issues: [unreadableIssue('state_corrupt', 'guard state', error)],
      cause: error,
    })
  }
}

function readGuardStateUnsafely(state: unknown): GuardStateEntries {
  if (!isRecord(state) || state.version !== 1) invalid('version')
  const plan = state.plan
  if (plan !== null && !isRecord(plan)) invalid('plan')
  const status = state.status
  if (!isRecord(status)) invalid('status')
  const statusEntries = Object.keys(status).map((id): [string, StepStatus] => {
    const value = status[id]
    if (typeof value !== 'string' || !STATUSES.has(value)) invalid('status')
    return [id, value as StepStatus]
  })
  const outputs = state.outputs
  if (!isRecord(outputs)) invalid('outputs')
  const outputEntries = Object.keys(outputs).map((id): [string, JsonValue] => {
    const copied = copyJson(outputs[id])
    if (!copied.ok) invalid('outputs')
    return [id, copied.value]
  })
  const hashes = state.seenPlanHashes
  if (!Array.isArray(hashes) || !hashes.every((hash) => typeof hash === 'string'))
    invalid('seenPlanHashes')
  const startedAt = state.startedAt
  if (typeof startedAt !== 'number' || !Number.isFinite(startedAt)) invalid('startedAt')
  const stopped = state.stopped
  if (
    stopped !== null &&
    (!isRecord(stopped) || typeof stopped.code !== 'string' || typeof stopped.message !== 'string')
  ) {
    invalid('stopped')
  }
  const mode = state.mode ?? 'plan'
  if (mode !== 'plan' && mode !== 'turn') invalid('mode')
  return {
    plan: plan as CompiledPlan | null,
    status: statusEntries,
    outputs: outputEntries,
    calls: count(state.calls, 'calls'),
    callsPerTool: counts(state.callsPerTool, 'callsPerTool'),
    identicalCalls: counts(state.identicalCalls, 'identicalCalls'),
    seenPlanHashes: hashes as string[],
    turns: counts(state.turns, 'turns'),
    denials: state.denials === undefined ? 0 : count(state.denials, 'denials'),
    deniedRepeats: counts(state.deniedRepeats, 'deniedRepeats'),
    replans: count(state.replans, 'replans'),
    startedAt,
    stopped: (stopped ?? null) as PlanIssue | null,
    mode,
    flow: state.flow === undefined ? undefined : readUntrustedFlowState(state.flow),
  }
}
