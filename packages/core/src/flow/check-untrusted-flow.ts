import { itemAt, type PlanIssue } from '@plan/shell/common'
import type { ToolPolicy } from '../schema/policy-schema.js'
import type { StepReference } from '../types/compiled-plan.js'
import type { ResolvedPolicy } from '../types/resolved-policy.js'
import { untrustedFlowIssues } from './untrusted-flow-issues.js'

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
  /** The index in `steps` of a step id, when the caller already has such a map. */
  readonly indexOf?: (id: string) => number | undefined
}

/**
 * Reports every `$ref` by which untrusted output reaches an argument that refuses it, with
 * the whole flow (`fetch.output → summarize.args.text → summarize.output → run.args.command`).
 *
 * Labels propagate along `$ref` edges in topological order: a step's output is untrusted when
 * its tool's output is (declared, or the policy's `trust.defaultOutput`), or when any of its
 * arguments reads untrusted output; a declassifying tool's output is trusted (it is checked
 * against its schema at run time). A plain `depends_on` orders steps but carries no data, so
 * it carries no label. Steps whose tool the policy does not know are neither sources nor
 * sinks (the plan is rejected for them anyway); they pass labels on. Linear in steps + edges.
 */
export function checkUntrustedFlow(input: FlowInput): PlanIssue[] {
  const { policy, steps, order } = input
  let indexOf = input.indexOf
  if (indexOf === undefined) {
    const indexById = new Map<string, number>()
    for (let index = 0; index < steps.length; index += 1)
      indexById.set(itemAt(steps, index).id, index)
    indexOf = (id) => indexById.get(id)
  }
  const ids: string[] = []
  const references: (readonly StepReference[])[] = []
  const tools: (ToolPolicy | undefined)[] = []
  const referenceStart: number[] = []
  const referenceTarget: number[] = []
  for (let index = 0; index < steps.length; index += 1) {
    const step = itemAt(steps, index)
    ids.push(step.id)
    references.push(step.references)
    tools.push(policy.tools.get(step.tool))
    referenceStart.push(referenceTarget.length)
    for (const reference of step.references) referenceTarget.push(indexOf(reference.stepId) ?? -1)
  }
  referenceStart.push(referenceTarget.length)
  return untrustedFlowIssues({
    policy,
    ids,
    references,
    pathOf: (index) => itemAt(steps, index).path,
    order,
    tools,
    referenceStart,
    referenceTarget,
  })
}
