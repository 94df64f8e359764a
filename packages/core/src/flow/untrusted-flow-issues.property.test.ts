import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { resolvePolicy } from '../policy/resolve-policy.js'
import type { StepReference } from '../types/compiled-plan.js'
import { flowPolicy } from './__fixtures__/flow-policy.js'
import { referenceFlowIssues } from './__fixtures__/reference-flow-issues.js'
import { type IndexedFlow, untrustedFlowIssues } from './untrusted-flow-issues.js'

const policy = resolvePolicy(flowPolicy('/srv/repo'))
const TOOLS = [
  'fetch_page',
  'summarize',
  'extract_number',
  'view_file',
  'write_file',
  'run_command',
  'run_all',
  'pay',
  'note',
  'trusting_shell',
  'echo',
  'rm',
]
// Reference paths: sinks, arguments that take anything, inside arrays, undeclared.
const PATHS: readonly StepReference['path'][] = [
  ['url'],
  ['text'],
  ['file'],
  ['content'],
  ['command'],
  ['commands'],
  ['commands', 0],
  ['to'],
  ['amount'],
  ['other'],
]
const FIELDS: readonly StepReference['field'][] = [[], ['text'], ['items', '0']]

const stepArb = fc.record({
  tool: fc.constantFrom(...TOOLS),
  references: fc.array(
    fc.record({
      target: fc.oneof(
        { weight: 9, arbitrary: fc.nat() },
        { weight: 1, arbitrary: fc.constant(-1) },
      ),
      path: fc.constantFrom(...PATHS),
      field: fc.constantFrom(...FIELDS),
    }),
    { maxLength: 3 },
  ),
})

/**
 * An acyclic flow: step `i` refers to steps before it in a random topological order, which is
 * `order`; some references name no step (-1), some steps have an unknown tool.
 */
const flowArb = fc
  .array(stepArb, { minLength: 1, maxLength: 24 })
  .chain((drafts) =>
    fc.tuple(
      fc.constant(drafts),
      fc.shuffledSubarray(
        drafts.map((_, index) => index),
        { minLength: drafts.length, maxLength: drafts.length },
      ),
    ),
  )
  .map(([drafts, order]): IndexedFlow => {
    const position = new Int32Array(order.length)
    for (const [rank, node] of order.entries()) position[node] = rank
    const references: StepReference[][] = []
    const referenceStart = [0]
    const referenceTarget: number[] = []
    for (const [node, draft] of drafts.entries()) {
      const rank = position[node] as number
      const own: StepReference[] = []
      for (const reference of draft.references) {
        const target = reference.target < 0 || rank === 0 ? -1 : order[reference.target % rank]
        const stepId = target === undefined || target < 0 ? 'missing' : `s${target}`
        own.push({ path: reference.path, stepId, field: reference.field })
        referenceTarget.push(target ?? -1)
      }
      references.push(own)
      referenceStart.push(referenceTarget.length)
    }
    return {
      policy,
      ids: drafts.map((_, node) => `s${node}`),
      references,
      pathOf: (node) => ['steps', node],
      order,
      tools: drafts.map((draft) => policy.tools.get(draft.tool)),
      referenceStart,
      referenceTarget,
    }
  })

describe('untrustedFlowIssues', () => {
  it('should report what the propagation over every step reports, in the same order', () => {
    fc.assert(
      fc.property(flowArb, (flow) => {
        expect(untrustedFlowIssues(flow)).toEqual(referenceFlowIssues(flow))
      }),
      { numRuns: 2_000 },
    )
  })

  it('should report nothing for a flow whose references all reach arguments that accept untrusted data', () => {
    const fetch = policy.tools.get('fetch_page')
    const summarize = policy.tools.get('summarize')
    const flow: IndexedFlow = {
      policy,
      ids: ['fetch', 'sum'],
      references: [[], [{ path: ['text'], stepId: 'fetch', field: [] }]],
      pathOf: (node) => ['steps', node],
      order: [0, 1],
      tools: [fetch, summarize],
      referenceStart: [0, 0, 1],
      referenceTarget: [0],
    }
    expect(untrustedFlowIssues(flow)).toEqual([])
    expect(referenceFlowIssues(flow)).toEqual([])
  })
})
