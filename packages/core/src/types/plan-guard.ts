import type { PlanIssue } from '@plan/shell/common'
import type { z } from 'zod'
import type { guardStateSchema } from '../schema/guard-state-schema.js'
import type { Policy } from '../schema/policy-schema.js'
import type { AuditSink } from './audit-sink.js'
import type { CompiledPlan, CompiledStep } from './compiled-plan.js'
import type { InterruptedCall } from './interrupted-call.js'
import type { JsonObject } from './json-value.js'
import type { PlanCompiler, PlanValidationResult } from './plan-compiler.js'
import type { SavedStateChanges } from './saved-state-changes.js'
import type { UntrustedFlowState } from './untrusted-flow.js'

/** A live tool call, as a framework reports it. */
export interface ToolCall {
  readonly tool: string
  readonly args: unknown
  /** The framework's tool call id, when it has one. */
  readonly callId?: string
  /**
   * The approved step this call is meant to run as (an executor knows it). When given, only
   * that step is considered; when omitted, the call is matched by tool and arguments.
   */
  readonly stepId?: string
  /**
   * A human allowed this call after the guard refused it under `trust.tainted` with
   * `onRefuse: 'ask'`. Only adapters set it, after a person said yes; every other check still runs.
   */
  readonly humanApproved?: boolean
  /**
   * The caller puts a refusal a human may overrule (`tainted_run` under `onRefuse: 'ask'`,
   * `interrupted_call` offered to `retryInterrupted`) to a human by pausing the run, and the
   * same call (this `callId`, tool and arguments) comes again when the run resumes, as a
   * LangGraph node replayed after `interrupt()`. Such a refusal counts once against the denial
   * budgets, however often the call is replayed within the plan. Kept in `snapshot()`.
   */
  readonly asksHuman?: boolean
}

/** The guard's answer to a live call. */
export type AuthorizeResult =
  | {
      readonly allowed: true
      /** The approved step this call runs as; pass it to `complete` or `fail`. */
      readonly stepId: string
      /** The arguments to run the tool with (references resolved). */
      readonly args: JsonObject
    }
  | {
      readonly allowed: false
      /** Why the call was denied (the first problem). */
      readonly issue: PlanIssue
      readonly issues: readonly PlanIssue[]
    }

/** A resource request (MCP `resources/read`, `resources/subscribe`) an adapter checked itself. */
export interface ResourceRequest {
  /** The request's method, e.g. `resources/read`, as written to the audit log. */
  readonly method: string
  /** The resource's URI as requested; a value that is not a string is audited as null. */
  readonly uri: unknown
  /** The path a `file:` URI names: the real path checked when it was allowed. */
  readonly path?: string
  /** What the adapter's own check found wrong; any issue refuses the request. */
  readonly issues?: readonly PlanIssue[]
  /** True when the request returns the resource's content: it counts as a call. */
  readonly reads: boolean
}

/** The guard's answer to a resource request: refused as a call is. */
export type ResourceAuthorizeResult =
  | { readonly allowed: true }
  | Extract<AuthorizeResult, { readonly allowed: false }>

/** How a plan reaches the guard after the first one. */
export type SubmitKind =
  /** A new plan from a planner after a rejection or failure; counts against `maxReplans`. */
  | 'replan'
  /** One model turn's batch of tool calls, compiled as a plan (per-turn mode). */
  | 'turn'

/** What `submitPlan` answers. */
export type SubmitResult = PlanValidationResult

/** The status of one step at run time. */
export type StepStatus = 'pending' | 'running' | 'done' | 'failed' | 'skipped'

/**
 * The guard's state as JSON, to resume a run in another process: the type of
 * `guardStateSchema` (`@plan/core/schemas`), which also gives its validator and JSON Schema.
 */
export type PlanGuardState = Readonly<
  z.output<typeof guardStateSchema> & {
    /** The current plan, compiled again when the state is restored. */
    plan: CompiledPlan | null
    /** Why the run stopped, if it did. */
    stopped: PlanIssue | null
    /** Trust labels of finished steps and the untrusted text seen so far. */
    flow?: UntrustedFlowState
  }
>

/** Options of `submitPlan`. */
export interface SubmitOptions {
  /** The plan's `signPlan` signature, when the guard requires one. */
  readonly signature?: string
}

/** A step's arguments with references resolved, or why they cannot be. */
export type ResolveArgsResult =
  | { readonly success: true; readonly args: JsonObject }
  | { readonly success: false; readonly issue: PlanIssue }

/** Options for {@link PlanGuard} factories. */
export interface PlanGuardOptions {
  /** The compiler (and so the policy) every live call is re-checked with. */
  readonly compiler: PlanCompiler
  /** Resume from a state produced by `snapshot()`. */
  readonly state?: PlanGuardState
  /**
   * Workspace files an earlier run of the same workspace wrote from untrusted data, with their
   * sources (that run's `snapshot().flow.files`): a fresh run keeps them labelled, so a command
   * executing them is still refused (`untrusted_flow`). Added to the labels of `state`, if any.
   */
  readonly labelledFiles?: Readonly<Record<string, readonly string[]>>
  /** Check path arguments on disk (symlinks resolved) before a call is allowed. Default true. */
  readonly checkPathsOnDisk?: boolean
  /** Clock, for tests. Defaults to `Date.now`. */
  readonly now?: () => number
  /**
   * The `signPlan` signature of the plan. When given, or when `requireSignature` or the
   * policy's `approval.requireSignature` is set, the guard refuses (throws `PlanError` with
   * `signature_invalid`) a plan whose signature does not verify with `secret`.
   */
  readonly signature?: string
  /** The secret plans are signed with (32 bytes or more). */
  readonly secret?: string | Uint8Array
  /** Require a valid signature for the plan and for every re-plan or turn. Default false. */
  readonly requireSignature?: boolean
  /**
   * Where every decision is written (see `createFileAuditSink` in `@plan/audit/node`). A
   * policy with `audit.required` refuses to start without one.
   */
  readonly audit?: AuditSink
}

/**
 * Tracks an approved plan at run time and decides about every live tool call. Reservations happen
 * synchronously inside `authorize` before its first `await`, so calls made in parallel can never
 * together exceed a budget or run one step twice.
 */
export interface PlanGuard {
  /** The policy every call is checked against (its shared budgets, its tools). */
  readonly policy: Policy
  /** The current approved plan, or undefined before the first plan in per-turn mode. */
  readonly plan: CompiledPlan | undefined
  /** Matches a live call to a ready approved step and re-checks it; never throws for bad input. */
  authorize(call: ToolCall): Promise<AuthorizeResult>
  /** Marks a step done with its output; dependents may become ready. */
  complete(stepId: string, output: unknown): void
  /** Marks a step failed; its dependents will never be ready (they become `skipped`). */
  fail(stepId: string, error: unknown): void
  /**
   * Returns a running step to ready without finishing it, so the same call can be authorized
   * again (a retry). The call it made still counts against the budgets.
   */
  release(stepId: string): void
  /**
   * A ready step's planned arguments with references resolved. They may be frozen (a step without
   * references shares its compiled arguments): copy them before changing anything.
   */
  resolveArgs(stepId: string): ResolveArgsResult
  /** Steps whose dependencies are all done and that have not started. */
  readySteps(): readonly CompiledStep[]
  /** Names of the tools of ready steps and of interrupted calls (for tool masking). */
  readyTools(): readonly string[]
  /** True when every step is done, failed or skipped. */
  isComplete(): boolean
  /**
   * Calls that started before this guard was restored and never ended (a crash): each is
   * denied with `interrupted_call` until `release` (a human approved running it again) or
   * `fail`. Interrupted calls of tools the policy marks `idempotent` are released on restore.
   */
  interruptedCalls(): readonly InterruptedCall[]
  /**
   * Decides about a resource request the adapter checked: refused when the adapter found
   * issues or the run has stopped, or, for a read, past `budgets.maxCalls` (reads count as
   * calls). Every decision is audited; a refusal counts as a denial. Never throws.
   */
  authorizeResource(request: ResourceRequest): ResourceAuthorizeResult
  /**
   * Records an allowed resource read's content, untrusted unless the policy trusts every tool's
   * output as it comes: text copied from untrusted content into a command or write path is refused.
   */
  completeResource(uri: string, output: unknown): void
  /**
   * Records what an allowed resource read showed when it failed: its error, labelled as a failed
   * call's error is (the whole message and the error's own enumerable fields, such as an MCP
   * error's `data`), so text copied from it into a command or a write path is refused too.
   */
  failResource(uri: string, error: unknown): void
  /** Why the run was stopped (an exhausted budget, a loop), if it was. */
  stopReason(): PlanIssue | undefined
  /** Compiles and installs a new plan (a re-plan, or one turn's calls in per-turn mode). */
  submitPlan(plan: unknown, kind: SubmitKind, options?: SubmitOptions): SubmitResult
  /** The state as JSON. */
  snapshot(): PlanGuardState
  /**
   * For stores that save changes (`GuardStore.saveChanges`): `snapshot()` as the whole state of
   * revision `revision`, from which the guard starts counting changes.
   */
  snapshotAs(revision: number): PlanGuardState
  /**
   * What changed in `snapshot()`, to be saved as revision `revision`, since the last revision a
   * store confirmed (`savedAs`) or the last `snapshotAs`; undefined before the first
   * `snapshotAs`. The changes apply to that revision or to any later one a store holds.
   */
  changesSince(revision: number): SavedStateChanges | undefined
  /** A store has saved revision `revision` (whole or as changes). */
  savedAs(revision: number): void
}
