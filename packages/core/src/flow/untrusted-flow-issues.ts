import type { ToolPolicy } from '../schema/policy-schema.js'
import type { StepReference } from '../types/compiled-plan.js'
import type { PlanIssue } from '../types/plan-issue.js'
import type { ResolvedPolicy } from '../types/resolved-policy.js'
import {
  argumentName,
  outputName,
  pathRefusesUntrusted,
  toolDeclassifies,
  toolOutputIsUntrusted,
} from './trust-rules.js'

/**
 * An acyclic plan, one entry per step in each column, with its lookups already done, so the
 * propagation touches a step only when it has references: `referenceTarget[referenceStart[i] + k]`
 * is the step that `references[i][k]` reads (-1 when it names no step).
 */
export interface IndexedFlow {
  readonly policy: ResolvedPolicy
  readonly ids: readonly string[]
  readonly references: readonly (readonly StepReference[])[]
  /** JSON path of a step inside the plan, asked only for an issue. */
  readonly pathOf: (step: number) => readonly (string | number)[]
  /** Indices of `steps` in a topological order. */
  readonly order: ArrayLike<number>
  /** The policy of each step's tool; undefined for a tool the policy does not know. */
  readonly tools: readonly (ToolPolicy | undefined)[]
  readonly referenceStart: ArrayLike<number>
  readonly referenceTarget: ArrayLike<number>
}

/** Why a step's output is untrusted: its tool says so, or untrusted data went into it. */
type Origin =
  | { readonly kind: 'source' }
  | { readonly kind: 'derived'; readonly from: number; readonly reference: StepReference }

const SOURCE: Origin = Object.freeze({ kind: 'source' })
const NEUTRAL = 0
const IS_SOURCE = 1
const DECLASSIFIES = 2

function roleOf(policy: ResolvedPolicy, tool: ToolPolicy | undefined): number {
  if (tool === undefined) return NEUTRAL
  if (toolDeclassifies(tool)) return DECLASSIFIES
  return toolOutputIsUntrusted(policy.policy, tool) ? IS_SOURCE : NEUTRAL
}

/** The hops from an untrusted source to `source`'s output (`field` of it). */
function flowTo(
  ids: readonly string[],
  origins: readonly (Origin | undefined)[],
  source: number,
  field: readonly string[],
): string[] {
  const hops: string[] = []
  let current = source
  let currentField = field
  // Walk back to the source, then reverse: iterative, so a long chain cannot overflow.
  for (;;) {
    const id = ids[current] as string
    hops.push(outputName(id, currentField))
    const origin = origins[current]
    if (origin === undefined || origin.kind === 'source') break
    hops.push(argumentName(id, origin.reference.path))
    current = origin.from
    currentField = origin.reference.field
  }
  return hops.reverse()
}

function untrustedFlowIssue(
  id: string,
  path: readonly (string | number)[],
  reference: StepReference,
  flow: string[],
) {
  return {
    code: 'untrusted_flow',
    message: `Untrusted data reaches an argument that refuses it: ${flow.join(' → ')}.`,
    path: [...path, 'args', ...reference.path],
    stepId: id,
    hint:
      `Do not pass ${flow[0]} (untrusted) into ${argumentName(id, reference.path)}: ` +
      'commands, write paths and network destinations take only trusted values. Use a fixed ' +
      'value chosen before reading the data, or turn the data into a narrow value (an enum, ' +
      'a number, a pattern, a workspace path) with an "extract" step or a tool whose policy ' +
      'declares output.declassify.',
    flow,
  } satisfies PlanIssue
}

/**
 * The propagation behind `checkUntrustedFlow`: labels travel along `$ref` edges in
 * topological order. Linear in steps + references.
 */
export function untrustedFlowIssues(input: IndexedFlow): PlanIssue[] {
  const { policy, ids, references: referencesOf, order, tools } = input
  const { referenceStart, referenceTarget } = input
  // Each tool's role, worked out once per tool.
  const roles = new Map<ToolPolicy | undefined, number>()
  const origins: (Origin | undefined)[] = new Array(ids.length)
  const issues: PlanIssue[] = []
  for (let position = 0; position < order.length; position += 1) {
    const node = order[position] as number
    const tool = tools[node]
    let role = roles.get(tool)
    if (role === undefined) {
      role = roleOf(policy, tool)
      roles.set(tool, role)
    }
    if (role === IS_SOURCE) origins[node] = SOURCE
    const first = referenceStart[node] as number
    const end = referenceStart[node + 1] as number
    if (first === end) continue
    const references = referencesOf[node] as readonly StepReference[]
    for (let slot = first; slot < end; slot += 1) {
      const reference = references[slot - first] as StepReference
      const from = referenceTarget[slot] as number
      if (from < 0 || origins[from] === undefined) continue
      if (tool !== undefined && pathRefusesUntrusted(tool, reference.path)) {
        const id = ids[node] as string
        const flow = [
          ...flowTo(ids, origins, from, reference.field),
          argumentName(id, reference.path),
        ]
        issues.push(untrustedFlowIssue(id, input.pathOf(node), reference, flow))
      }
      if (role !== DECLASSIFIES && origins[node] === undefined) {
        origins[node] = { kind: 'derived', from, reference }
      }
    }
  }
  return issues
}
