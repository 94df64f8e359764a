import type { JsonObject } from './json-value.js'

/** A `{ "$ref": "<stepId>[.output.<field>…]" }` argument: where it sits and what it reads. */
export interface StepReference {
  /** JSON path of the reference inside the step's `args`, e.g. `["file"]`. */
  readonly path: readonly (string | number)[]
  /** The step whose output is read. */
  readonly stepId: string
  /** The field path inside that output; empty for the whole output. */
  readonly field: readonly string[]
}

/** One approved step. */
export interface CompiledStep {
  readonly id: string
  /** Position in the submitted plan. */
  readonly index: number
  readonly tool: string
  /** The planned arguments; `$ref` objects stay in place until run time. */
  readonly args: Readonly<JsonObject>
  /** Explicit dependencies and those implied by references, without duplicates. */
  readonly dependsOn: readonly string[]
  readonly references: readonly StepReference[]
  /** Length of the longest chain of dependencies before this step (0 for roots). */
  readonly level: number
}

/** An approved plan: a DAG that the policy allows, with its execution order. */
export interface CompiledPlan {
  /** Steps in the order they were submitted. */
  readonly steps: readonly CompiledStep[]
  /** A topological order; ties keep the submitted order. */
  readonly order: readonly string[]
  /** Steps grouped by level: every step of a level can run once the levels before it are done. */
  readonly levels: readonly (readonly string[])[]
  /** SHA-256 (hex) of the plan's canonical JSON form; key order does not change it. */
  readonly hash: string
  /** Number of steps on the longest dependency chain. */
  readonly criticalPathLength: number
}
