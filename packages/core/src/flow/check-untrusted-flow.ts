import type { StepReference } from '../compile/compiled-plan.js'
import type { PlanIssue } from '../issues/plan-issue.js'
import type { ResolvedPolicy } from '../policy/resolve-policy.js'
import {
  argumentName,
  outputName,
  pathRefusesUntrusted,
  toolDeclassifies,
  toolOutputIsUntrusted,
} from './trust-rules.js'

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

/** Why a step's output is untrusted: its tool says so, or untrusted data went into it. */
type Origin =
  | { readonly kind: 'source' }
  | { readonly kind: 'derived'; readonly from: number; readonly reference: StepReference }

const SOURCE: Origin = Object.freeze({ kind: 'source' })

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
      indexById.set((steps[index] as FlowStep).id, index)
    indexOf = (id) => indexById.get(id)
  }
  // Whether each tool is a source (untrusted output) or a declassifier, worked out once per tool.
  const roles = new Map<string, { source: boolean; declassifies: boolean }>()
  const origins: (Origin | undefined)[] = new Array(steps.length)
  const issues: PlanIssue[] = []

  const flowTo = (source: number, field: readonly string[]): string[] => {
    const hops: string[] = []
    let current = source
    let currentField = field
    // Walk back to the source, then reverse: iterative, so a long chain cannot overflow.
    for (;;) {
      const step = steps[current] as FlowStep
      hops.push(outputName(step.id, currentField))
      const origin = origins[current]
      if (origin === undefined || origin.kind === 'source') break
      hops.push(argumentName(step.id, origin.reference.path))
      current = origin.from
      currentField = origin.reference.field
    }
    return hops.reverse()
  }

  for (const node of order) {
    const step = steps[node]
    if (step === undefined) continue
    const tool = policy.tools.get(step.tool)
    let role = roles.get(step.tool)
    if (role === undefined) {
      const declassifies = tool !== undefined && toolDeclassifies(tool)
      role = {
        declassifies,
        source: tool !== undefined && !declassifies && toolOutputIsUntrusted(policy.policy, tool),
      }
      roles.set(step.tool, role)
    }
    const declassifies = role.declassifies
    if (role.source) origins[node] = SOURCE
    for (const reference of step.references) {
      const from = indexOf(reference.stepId)
      if (from === undefined || origins[from] === undefined) continue
      if (tool !== undefined && pathRefusesUntrusted(tool, reference.path)) {
        const flow = [...flowTo(from, reference.field), argumentName(step.id, reference.path)]
        issues.push({
          code: 'untrusted_flow',
          message: `Untrusted data reaches an argument that refuses it: ${flow.join(' → ')}.`,
          path: [...step.path, 'args', ...reference.path],
          stepId: step.id,
          hint:
            `Do not pass ${flow[0]} (untrusted) into ${argumentName(step.id, reference.path)}: ` +
            'commands, write paths and network destinations take only trusted values. Use a fixed ' +
            'value chosen before reading the data, or turn the data into a narrow value (an enum, ' +
            'a number, a pattern, a workspace path) with an "extract" step or a tool whose policy ' +
            'declares output.declassify.',
          flow,
        })
      }
      if (!declassifies && origins[node] === undefined) {
        origins[node] = { kind: 'derived', from, reference }
      }
    }
  }
  return issues
}
