import type { StepReference } from '../compile/compiled-plan.js'
import type { PlanIssue } from '../issues/plan-issue.js'
import type { ResolvedPolicy } from '../policy/resolve-policy.js'

/** One step as the flow check sees it. */
export interface FlowStep {
  readonly id: string
  readonly tool: string
  /** JSON path of the step inside the plan, e.g. `["steps", 3]`. */
  readonly path: readonly (string | number)[]
  readonly references: readonly StepReference[]
  /** Indices (into `steps`) of the steps this one depends on. */
  readonly dependsOn: readonly number[]
}

/** What {@link checkUntrustedFlow} reads: an acyclic plan and the policy. */
export interface FlowInput {
  readonly policy: ResolvedPolicy
  readonly steps: readonly FlowStep[]
  /** Indices of `steps` in a topological order. */
  readonly order: readonly number[]
}

/** Reports every path by which untrusted output reaches an argument that refuses it. */
export function checkUntrustedFlow(_input: FlowInput): PlanIssue[] {
  return []
}
