import type { PlanIssue } from '@plan/shell/common'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { createPlanCompiler } from '../compile/create-plan-compiler.js'
import { resolvePolicy } from '../policy/resolve-policy.js'
import type { PlanCompiler } from '../types/plan-compiler.js'
import { flowPolicy } from './__fixtures__/flow-policy.js'
import { type IndexedFlow, untrustedFlowIssues } from './untrusted-flow-issues.js'

function flowIssues(compiler: PlanCompiler, plan: unknown): PlanIssue[] {
  const result = compiler.validate(plan)
  return result.success ? [] : result.issues.filter((issue) => issue.code === 'untrusted_flow')
}

/** Tools of the property test whose first argument refuses untrusted data. */
const SINKS = new Map([
  ['run_command', 'command'],
  ['write_file', 'file'],
  ['fetch_page', 'url'],
])

const fetch = { id: 'fetch', tool: 'fetch_page', args: { url: 'https://example.com/notes' } }

describe('untrustedFlowIssues', () => {
  let compiler: PlanCompiler

  beforeAll(async () => {
    compiler = await createPlanCompiler(flowPolicy('/srv/repo'))
  })

  it('should reject a fetched page piped into run_command, naming the flow and its location', () => {
    const result = compiler.validate([
      fetch,
      { id: 'run', tool: 'run_command', args: { command: { $ref: 'fetch.output.body' } } },
    ])
    expect(result.success).toBe(false)
    const issues = result.success ? [] : result.issues
    expect(issues).toHaveLength(1)
    expect(issues[0]).toMatchObject({
      code: 'untrusted_flow',
      stepId: 'run',
      path: [1, 'args', 'command'],
      flow: ['fetch.output.body', 'run.args.command'],
    })
    expect(issues[0]?.message).toContain('fetch.output.body → run.args.command')
    expect(issues[0]?.hint).toContain('declassify')
  })

  it('should name every hop of a flow through intermediate steps', () => {
    const [issue] = flowIssues(compiler, {
      steps: [
        fetch,
        { id: 'sum', tool: 'summarize', args: { text: { $ref: 'fetch.output.body' } } },
        { id: 'copy', tool: 'echo', args: { text: { $ref: 'sum' } } },
        { id: 'run', tool: 'run_command', args: { command: { $ref: 'copy.output' } } },
      ],
    })
    expect(issue?.flow).toEqual([
      'fetch.output.body',
      'sum.args.text',
      'sum.output',
      'copy.args.text',
      'copy.output',
      'run.args.command',
    ])
    expect(issue?.path).toEqual(['steps', 3, 'args', 'command'])
  })

  it('should allow untrusted data into arguments that accept it (content, read paths)', () => {
    expect(
      compiler.validate([
        fetch,
        {
          id: 'save',
          tool: 'write_file',
          args: { file: 'notes.md', content: { $ref: 'fetch.output.body' } },
        },
        { id: 'read', tool: 'view_file', args: { file: { $ref: 'fetch.output.title' } } },
      ]).success,
    ).toBe(true)
  })

  it('should refuse untrusted data in write paths, URLs and arguments that opt out', () => {
    const issues = flowIssues(compiler, [
      fetch,
      {
        id: 'save',
        tool: 'write_file',
        args: { file: { $ref: 'fetch.output.title' }, content: 'x' },
      },
      { id: 'next', tool: 'fetch_page', args: { url: { $ref: 'fetch.output.title' } } },
      { id: 'note', tool: 'note', args: { text: { $ref: 'fetch' } } },
    ])
    expect(issues.map((issue) => issue.flow?.at(-1))).toEqual([
      'save.args.file',
      'next.args.url',
      'note.args.text',
    ])
  })

  it('should allow a command argument that declares acceptsUntrusted: true', () => {
    expect(
      flowIssues(compiler, [
        fetch,
        { id: 'run', tool: 'trusting_shell', args: { command: { $ref: 'fetch.output.body' } } },
      ]),
    ).toEqual([])
  })

  it('should check references into arrays of commands, item by item or whole', () => {
    const issues = flowIssues(compiler, [
      fetch,
      { id: 'one', tool: 'run_all', args: { commands: ['ls', { $ref: 'fetch.output.body' }] } },
    ])
    expect(issues.map((issue) => issue.path)).toEqual([[1, 'args', 'commands', 1]])
  })

  it('should not treat a plain depends_on as a data flow', () => {
    expect(
      flowIssues(compiler, [
        fetch,
        { id: 'run', tool: 'run_command', args: { command: 'ls' }, depends_on: ['fetch'] },
      ]),
    ).toEqual([])
  })

  it('should let a declassified numeric extraction reach an argument that refuses untrusted data', () => {
    const plan = [
      fetch,
      { id: 'price', tool: 'extract_number', args: { text: { $ref: 'fetch.output.body' } } },
      {
        id: 'pay',
        tool: 'pay',
        args: { to: 'https://shop.example/pay', amount: { $ref: 'price' } },
      },
    ]
    expect(compiler.validate(plan).success).toBe(true)
    const direct = flowIssues(compiler, [
      fetch,
      {
        id: 'pay',
        tool: 'pay',
        args: { to: 'https://shop.example/pay', amount: { $ref: 'fetch' } },
      },
    ])
    expect(direct.map((issue) => issue.flow)).toEqual([['fetch.output', 'pay.args.amount']])
  })

  it('should treat tools that declare nothing as untrusted unless trust.defaultOutput is trusted', async () => {
    const plan = [
      { id: 'read', tool: 'view_file', args: { file: 'README.md' } },
      { id: 'run', tool: 'run_command', args: { command: { $ref: 'read.output.content' } } },
    ]
    expect(flowIssues(compiler, plan).map((issue) => issue.flow)).toEqual([
      ['read.output.content', 'run.args.command'],
    ])
    const trusting = await createPlanCompiler(
      flowPolicy('/srv/repo', { trust: { defaultOutput: 'trusted' } }),
    )
    expect(flowIssues(trusting, plan)).toEqual([])
  })

  it('should report every flow into a sink when a plan has other problems too', () => {
    const result = compiler.validate([
      fetch,
      { id: 'typo', tool: 'fetch_pag', args: {} },
      { id: 'run', tool: 'run_command', args: { command: { $ref: 'fetch.output.body' } } },
    ])
    expect(result.success ? [] : result.issues.map((issue) => issue.code)).toEqual([
      'unknown_tool',
      'untrusted_flow',
    ])
  })

  it('should report a sink reachable by a $ref path from an untrusted source, and only then', () => {
    const policy = resolvePolicy(flowPolicy('/srv/repo'))
    const tools = ['fetch_page', 'summarize', 'echo', 'extract_number', 'run_command', 'write_file']
    const stepArb = fc.record({
      tool: fc.constantFrom(...tools),
      refs: fc.array(fc.nat(), { maxLength: 3 }),
    })
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 12 }), (drafts) => {
        // Step i may only refer to earlier steps, so the graph is a DAG in index order.
        const steps = drafts.map((draft, index) => {
          const targets = index === 0 ? [] : [...new Set(draft.refs.map((ref) => ref % index))]
          const argument = SINKS.get(draft.tool) ?? 'text'
          return {
            id: `s${index}`,
            tool: draft.tool,
            targets,
            references: targets.map((target) => ({
              path: [argument],
              stepId: `s${target}`,
              field: [],
            })),
          }
        })
        const referenceStart = [0]
        for (const step of steps)
          referenceStart.push(step.targets.length + (referenceStart.at(-1) ?? 0))
        const flow: IndexedFlow = {
          policy,
          ids: steps.map((step) => step.id),
          references: steps.map((step) => step.references),
          pathOf: (index) => [index],
          order: steps.map((_, index) => index),
          tools: steps.map((step) => policy.tools.get(step.tool)),
          referenceStart,
          referenceTarget: steps.flatMap((step) => step.targets),
        }
        const issues = untrustedFlowIssues(flow)
        // Reference model: a step's output is untrusted if its tool is a source, or (unless it
        // declassifies) if any step it refers to is untrusted.
        const untrusted: boolean[] = []
        const expected = new Set<string>()
        steps.forEach((step, index) => {
          const fed = step.references.some(
            (reference) => untrusted[Number(reference.stepId.slice(1))],
          )
          untrusted[index] = step.tool === 'fetch_page' || (step.tool !== 'extract_number' && fed)
          if (SINKS.has(step.tool)) {
            for (const reference of step.references)
              if (untrusted[Number(reference.stepId.slice(1))])
                expected.add(`${step.id}<-${reference.stepId}`)
          }
        })
        const reported = new Set(
          issues.map((issue) => `${issue.stepId}<-${issue.flow?.at(-2)?.split('.')[0]}`),
        )
        expect(reported).toEqual(expected)
        for (const issue of issues) {
          const flow = issue.flow ?? []
          expect(flow[0]?.split('.')[0]).toSatisfy(
            (id: string) => steps[Number(id.slice(1))]?.tool === 'fetch_page',
          )
        }
      }),
      { numRuns: 300 },
    )
  })
})
