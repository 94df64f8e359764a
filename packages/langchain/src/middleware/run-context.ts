import {
  formatIssues,
  PlanCompilationError,
  type PlanCompiler,
  PlanError,
  type PlanGuard,
  type PlanIssue,
  type RunWriter,
} from '@plan/core'
import { createRunWriter } from '@plan/core/adapter'
import type { AskBatch } from './ask-batch.js'
import type { PlanGuardRunState } from './run-state.js'

/** Why a run is ending, and the error an `error` exit throws. */
export interface PendingExit {
  readonly issues: readonly PlanIssue[]
  readonly error: PlanError
}

/** One agent run as the middleware tracks it in memory: its guard and turn bookkeeping. */
export interface RunContext {
  readonly id: string
  /** The revision of the last state written for this run. */
  revision: number
  /** This middleware as the run's one writer in the guard store (see `GuardStore.save`). */
  writer: RunWriter
  readonly guard: PlanGuard
  readonly compiler: PlanCompiler
  /** Model turns so far, and the turn (and its calls) last checked (per-turn mode). */
  turn: number
  submittedTurn: number
  submittedKey: string | undefined
  /** Per-turn mode: the step id of each tool call of the approved current turn. */
  turnSteps: Map<string, string>
  /** Per-turn mode: why each call of the last rejected turn was rejected. */
  rejected: Map<string, readonly PlanIssue[]>
  exit: PendingExit | undefined
  /** The model has had its last word after the guard stopped the run. */
  told: boolean
  /** Per-turn mode: the refusals of the current turn put to a human together. */
  asking?: { readonly key: string; readonly batch: AskBatch } | undefined
}

/** A run that has just started. */
export function newRun(id: string, guard: PlanGuard, compiler: PlanCompiler): RunContext {
  return {
    id,
    revision: 0,
    writer: createRunWriter(undefined),
    guard,
    compiler,
    turn: 0,
    submittedTurn: 0,
    submittedKey: undefined,
    turnSteps: new Map(),
    rejected: new Map(),
    exit: undefined,
    told: false,
  }
}

/** The run's state to write into the agent state, under the next revision. */
export function savedRunState(run: RunContext): PlanGuardRunState {
  run.revision += 1
  // The guard counts the changes of later saves from this whole state.
  const guard = run.guard.snapshotAs(run.revision)
  const { version, runId, revision, ...rest } = runBookkeeping(run)
  return { version, runId, revision, guard, ...rest }
}

/** The run's state without the guard's, under the current revision. */
export function runBookkeeping(run: RunContext): Omit<PlanGuardRunState, 'guard'> {
  return {
    version: 1,
    runId: run.id,
    revision: run.revision,
    turn: run.turn,
    submittedTurn: run.submittedTurn,
    submittedKey: run.submittedKey ?? null,
    turnSteps: Object.fromEntries(run.turnSteps),
    rejected: Object.fromEntries(run.rejected),
    exit:
      run.exit === undefined
        ? null
        : { issues: run.exit.issues, compilation: run.exit.error instanceof PlanCompilationError },
  }
}

/** Why the guard stopped the run (an exhausted budget, a loop, the deadline), if it did. */
export function stopIssue(run: RunContext): PlanIssue | undefined {
  return run.guard.stopReason()
}

/** Marks the run as ending; the first reason stays. */
export function setExit(run: RunContext, issues: readonly PlanIssue[], error?: PlanError): void {
  run.exit ??= {
    issues,
    error: error ?? new PlanError(`@plan denied a tool call:\n${formatIssues(issues)}`, { issues }),
  }
}
