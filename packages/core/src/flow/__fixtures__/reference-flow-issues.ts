import type { PlanIssue } from '@plan/shell/common'
import type { ToolPolicy } from '../../schema/policy-schema.js'
import type { StepReference } from '../../types/compiled-plan.js'
import type { ResolvedPolicy } from '../../types/resolved-policy.js'
import {
  argumentName,
  outputName,
  pathRefusesUntrusted,
  toolDeclassifies,
  toolOutputIsUntrusted,
} from '../trust-rules.js'
import type { IndexedFlow } from '../untrusted-flow-issues.js'

const NEUTRAL = 0
const IS_SOURCE = 1
const DECLASSIFIES = 2

// Why each step's output is untrusted, one column per field and no object per step:
// `from[i]` is 0 (trusted), SOURCE (its tool says so) or the step it derives from + 1, and
// `reference[i]` the reference by which it does.
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
    const id = ids[current] as string
    hops.push(outputName(id, currentField))
    const from = origins.from[current] as number
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
 * The untrusted-flow propagation as it was before plans without a sink reference skipped it:
 * the reference the property tests compare `untrustedFlowIssues` with.
 */
export function referenceFlowIssues(input: IndexedFlow): PlanIssue[] {
  const { policy, ids, references: referencesOf, order, tools } = input
  const { referenceStart, referenceTarget } = input
  const origins: Origins = { from: new Int32Array(ids.length), reference: new Array(ids.length) }
  const from = origins.from
  const issues: PlanIssue[] = []
  // Each tool's role, worked out once per tool; the last one kept at hand.
  const roles = new Map<ToolPolicy | undefined, number>()
  let lastTool: ToolPolicy | undefined
  let lastRole = roleOf(policy, undefined)
  roles.set(undefined, lastRole)
  // Whether the last (tool, path) pair refuses untrusted data: references share path arrays.
  let refusalTool: ToolPolicy | undefined
  let refusalPath: StepReference['path'] | undefined
  let refuses = false
  for (let position = 0; position < order.length; position += 1) {
    const node = order[position] as number
    const tool = tools[node]
    if (tool !== lastTool) {
      lastTool = tool
      const known = roles.get(tool)
      lastRole = known ?? roleOf(policy, tool)
      if (known === undefined) roles.set(tool, lastRole)
    }
    if (lastRole === IS_SOURCE) from[node] = SOURCE
    const first = referenceStart[node] as number
    const end = referenceStart[node + 1] as number
    if (first === end) continue
    const references = referencesOf[node] as readonly StepReference[]
    for (let slot = first; slot < end; slot += 1) {
      const reference = references[slot - first] as StepReference
      const target = referenceTarget[slot] as number
      if (target < 0 || from[target] === 0) continue
      if (tool !== undefined && (tool !== refusalTool || reference.path !== refusalPath)) {
        refusalTool = tool
        refusalPath = reference.path
        refuses = pathRefusesUntrusted(tool, reference.path)
      }
      if (tool !== undefined && refuses) {
        const id = ids[node] as string
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
