import { int32At, type PlanIssue } from '@plan/shell/common'
import { plannedRunIssues } from '../flow/planned-runs.js'
import { type IndexedFlow, untrustedFlowIssues } from '../flow/untrusted-flow-issues.js'
import type { PlanValidationResult } from '../types/plan-compiler.js'
import type { ResolvedPolicy } from '../types/resolved-policy.js'
import { commandParser } from '../util/command-parser.js'
import { analyzeDependencies, type GraphAnalysis } from './analyze-graph.js'
import { buildCompiledPlan } from './build-compiled-plan.js'
import type { CommandCheck } from './command-check.js'
import { reportGraphIssues } from './graph-issues.js'
import { type LinkInput, linkSteps } from './link-steps.js'
import type { PlanLinks } from './plan-links.js'
import { readPlanSteps } from './read-plan-steps.js'
import { readStep, type StepReading } from './read-step.js'
import { LINEAR_IDS, StepIndex } from './step-index.js'
import { stepPath } from './step-path.js'
import { StepTable } from './step-table.js'

/**
 * Reports every `$ref` by which untrusted output reaches an argument that refuses it, and
 * every command that would execute a file the plan writes from untrusted data.
 */
function reportUntrustedFlow(input: LinkInput, graph: GraphAnalysis, links: PlanLinks): void {
  const { policy, checkCommand, table, base, issues } = input
  const flow: IndexedFlow = {
    policy,
    ids: links.ids,
    references: links.references,
    pathOf: (node) => stepPath(base, int32At(links.rowOf, node)),
    order: graph.order,
    tools: links.tools,
    referenceStart: links.referenceStart,
    referenceTarget: links.referenceTarget,
  }
  for (const issue of untrustedFlowIssues(flow)) issues.push(issue)
  const runIssues = plannedRunIssues({
    ...flow,
    args: links.args,
    dependencyStart: links.dependencyStart,
    dependencyTarget: links.dependencyTarget,
    toolName: (node) => String(table.tools[int32At(links.rowOf, node)]),
    parseCommand: commandParser({ checkCommand }),
  })
  for (const issue of runIssues) issues.push(issue)
}

/**
 * Reads every step into the table; owned steps are let go once read (the table keeps their args).
 * A loop of its own: inside `validatePlan` it would be compiled mid-run, and bail out every call.
 */
function readSteps(reading: StepReading, steps: unknown[]): void {
  for (let index = 0; index < steps.length; index += 1) {
    readStep(reading, steps[index], index)
    if (reading.owned === true) steps[index] = undefined
  }
}

/**
 * Validates and compiles a plan against a policy: shape, every step (id, tool, arguments,
 * dependencies), the graph (cycles, depth, fan-out) and untrusted data flow. Reports every issue in
 * plan order; compiles only a plan without any. An `owned` plan (parsed by the compiler, held by
 * nothing else) is taken apart as read, its argument objects frozen in place of copies. Step ids
 * are indexed in a list up to `linearUpTo` steps, in a table beyond (same results; tests compare).
 */
export function validatePlan(
  policy: ResolvedPolicy,
  checkCommand: CommandCheck,
  plan: unknown,
  owned = false,
  linearUpTo = LINEAR_IDS,
): PlanValidationResult {
  const issues: PlanIssue[] = []
  const budgets = policy.policy.budgets
  const found = readPlanSteps(plan, budgets.maxSteps, issues)
  if (found === undefined) return { success: false, issues }
  const { steps, base } = found
  const table = new StepTable(steps.length)
  const ids = new StepIndex(steps.length, linearUpTo)
  const reading: StepReading = { table, base, issues, ids, owned }
  readSteps(reading, steps)
  const input: LinkInput = { ...reading, policy, checkCommand }
  const links = linkSteps(input)
  const graph = analyzeDependencies(links.dependencyStart, links.dependencyTarget)
  reportGraphIssues(graph, links, budgets, base, issues)
  // Labels travel only along references: a plan without any has no flow to check.
  if (graph.cycles.length === 0 && links.referenceCount > 0)
    reportUntrustedFlow(input, graph, links)
  if (issues.length > 0) return { success: false, issues }
  return { success: true, plan: buildCompiledPlan(table, links, graph), issues: [] }
}
