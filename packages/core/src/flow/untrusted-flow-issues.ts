import { int32At, itemAt, type PlanIssue, stringAt } from '@plan/shell/common'
import type { ToolPolicy } from '../schema/policy-schema.js'
import type { StepReference } from '../types/compiled-plan.js'
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

const NEUTRAL = 0
const IS_SOURCE = 1
const DECLASSIFIES = 2

// Why each step's output is untrusted, one column per field, no object per step: `from[i]` is 0
// (trusted), SOURCE (its tool says so) or the step it derives from + 1, via `reference[i]`.
const SOURCE = -1

interface Origins {
  readonly from: Int32Array
  readonly reference: (StepReference | undefined)[]
}

function roleOf(policy: ResolvedPolicy, tool: ToolPolicy | undefined): number {
  if (tool === undefined) return NEUTRAL
  if (toolDeclassifies(tool)) return DECLASSIFIES
  return toolOutputIsUntrusted(policy.policy, tool) ? IS_SOURCE : NEUTRAL
}

/** The hops from an untrusted source to `source`'s output (`field` of it). */
function flowTo(
  ids: readonly string[],
  origins: Origins,
  source: number,
  field: readonly string[],
): string[] {
  const hops: string[] = []
  let current = source
  let currentField = field
  // Walk back to the source, then reverse: iterative, so a long chain cannot overflow.
  for (;;) {
    const id = stringAt(ids, current)
    hops.push(outputName(id, currentField))
    const from = int32At(origins.from, current)
    const reference = origins.reference[current]
    if (from <= 0 || reference === undefined) break
    hops.push(argumentName(id, reference.path))
    current = from - 1
    currentField = reference.field
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
 * Whether any reference of a step with a known tool, naming a step, sits where the tool refuses
 * untrusted data: without one, no label can reach a sink. One pass in step order.
 */
function hasSinkReference(input: IndexedFlow): boolean {
  const { references: referencesOf, tools, referenceStart, referenceTarget } = input
  // Whether the last (tool, path) pair refuses untrusted data: references share path arrays.
  let lastTool: ToolPolicy | undefined
  let lastPath: StepReference['path'] | undefined
  let refuses = false
  for (let node = 0; node < referenceStart.length - 1; node += 1) {
    const first = itemAt(referenceStart, node)
    const end = itemAt(referenceStart, node + 1)
    const tool = tools[node]
    if (first === end || tool === undefined) continue
    const references = itemAt(referencesOf, node)
    for (let slot = first; slot < end; slot += 1) {
      if (itemAt(referenceTarget, slot) < 0) continue
      const path = itemAt(references, slot - first).path
      if (tool !== lastTool || path !== lastPath) {
        lastTool = tool
        lastPath = path
        refuses = pathRefusesUntrusted(tool, path)
      }
      if (refuses) return true
    }
  }
  return false
}

/**
 * Reports every `$ref` by which untrusted output reaches an argument that refuses it, with the
 * whole flow (`fetch.output → summarize.args.text → summarize.output → run.args.command`).
 *
 * Labels propagate along `$ref` edges in topological order: a step's output is untrusted when its
 * tool's output is (declared, or the policy's `trust.defaultOutput`), or when any of its arguments
 * reads untrusted output; a declassifying tool's output is trusted (checked against its schema at
 * run time). A plain `depends_on` orders steps but carries no data, so no label. Steps whose tool
 * the policy does not know are neither sources nor sinks (the plan is rejected for them anyway);
 * they pass labels on. Linear in steps + references; a plan without a reference into an argument
 * that refuses untrusted data has nothing to report and is not propagated.
 */
export function untrustedFlowIssues(input: IndexedFlow): PlanIssue[] {
  if (!hasSinkReference(input)) return []
  const { policy, ids, references: referencesOf, order, tools } = input
  const { referenceStart, referenceTarget } = input
  const origins: Origins = { from: new Int32Array(ids.length), reference: new Array(ids.length) }
  const from = origins.from
  const issues: PlanIssue[] = []
  // Each tool's role, worked out once per run of steps of that tool.
  let lastTool: ToolPolicy | undefined
  let lastRole = roleOf(policy, undefined)
  // Whether the last (tool, path) pair refuses untrusted data: references share path arrays.
  let refusalTool: ToolPolicy | undefined
  let refusalPath: StepReference['path'] | undefined
  let refuses = false
  for (let position = 0; position < order.length; position += 1) {
    const node = itemAt(order, position)
    const tool = tools[node]
    if (tool !== lastTool) {
      lastTool = tool
      lastRole = roleOf(policy, tool)
    }
    if (lastRole === IS_SOURCE) from[node] = SOURCE
    const first = itemAt(referenceStart, node)
    const end = itemAt(referenceStart, node + 1)
    if (first === end) continue
    const references = itemAt(referencesOf, node)
    for (let slot = first; slot < end; slot += 1) {
      const reference = itemAt(references, slot - first)
      const target = itemAt(referenceTarget, slot)
      if (target < 0 || from[target] === 0) continue
      if (tool !== undefined && (tool !== refusalTool || reference.path !== refusalPath)) {
        refusalTool = tool
        refusalPath = reference.path
        refuses = pathRefusesUntrusted(tool, reference.path)
      }
      if (tool !== undefined && refuses) {
        const id = stringAt(ids, node)
        const flow = [
          ...flowTo(ids, origins, target, reference.field),
          argumentName(id, reference.path),
        ]
        issues.push(untrustedFlowIssue(id, input.pathOf(node), reference, flow))
      }
      if (lastRole !== DECLASSIFIES && from[node] === 0) {
        from[node] = target + 1
        origins.reference[node] = reference
      }
    }
  }
  return issues
}
