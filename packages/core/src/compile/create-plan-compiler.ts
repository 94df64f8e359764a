import type { z } from 'zod'
import { checkPathOnDisk } from '../checks/path-on-disk.js'
import { checkPathLexical, describe } from '../checks/path-scope.js'
import { createPolicyCommandCheck } from '../command/create-policy-command-check.js'
import { PlanCompilationError } from '../errors/plan-compilation-error.js'
import { checkExtractionStep } from '../extract/check-extraction-step.js'
import { untrustedFlowIssues } from '../flow/untrusted-flow-issues.js'
import { createIssue } from '../issues/create-issue.js'
import { unreadableIssue } from '../issues/unreadable-issue.js'
import { resolvePolicyLazily } from '../policy/resolve-policy-lazily.js'
import type { PolicyInput, ToolPolicy } from '../schema/policy-schema.js'
import type { CommandCheckResult } from '../types/command-check-result.js'
import type { CompiledPlan, CompiledStep, StepReference } from '../types/compiled-plan.js'
import type { PathAccess } from '../types/path-scope.js'
import type { PlanCompiler, PlanValidationResult } from '../types/plan-compiler.js'
import type { PlanIssue } from '../types/plan-issue.js'
import type { PlanObject } from '../types/plan-object.js'
import type { ResolvedPolicy, ResolvePolicyOptions } from '../types/resolved-policy.js'
import { isPlainObject } from '../util/is-plain-object.js'
import { analyzeDependencies } from './analyze-graph.js'
import { type ArgumentWalk, checkArguments, checkArgumentsInto } from './check-arguments.js'
import { PlanHasher } from './plan-hasher.js'
import { quote, readStep, StepTable, stepPath } from './step-table.js'
import { suggest } from './suggest.js'

type Path = (string | number)[]

const PLAN_KEYS = new Set(['steps', 'goal'])

const NONE: readonly StepReference[] = Object.freeze([])
const NO_IDS: readonly string[] = Object.freeze([])
const NO_ARGS: CompiledStep['args'] = Object.freeze({})

/**
 * A step's dependencies as hashed: explicit and implied by references alike, without
 * duplicates, sorted — so writing an implied dependency out does not change the hash.
 */
function hashedDependencies(raw: readonly string[]): readonly string[] {
  if (raw.length < 2) return raw
  if (raw.length === 2) {
    const [left, right] = raw as [string, string]
    return left === right ? [left] : left < right ? raw : [right, left]
  }
  return [...new Set(raw)].sort()
}

/**
 * Appends an edge of `node` to `edges` (and the step's id to `names[0, count)`) once, with a
 * stamp per node instead of a Set per step; returns the new count.
 */
function addDependency(
  edges: number[],
  names: string[],
  count: number,
  stamp: Int32Array,
  node: number,
  dependency: number,
  id: string,
): number {
  if (dependency < 0 || stamp[dependency] === node + 1) return count
  stamp[dependency] = node + 1
  edges.push(dependency)
  names[count] = id
  return count + 1
}

/** A new array of `items[0, count)`; literals for the usual one or two keep it exact-size. */
function head<T>(items: readonly T[], count: number): T[] {
  if (count === 1) return [items[0] as T]
  if (count === 2) return [items[0] as T, items[1] as T]
  return items.slice(0, count)
}

/** Options for {@link createPlanCompiler}. */
export interface PlanCompilerOptions extends ResolvePolicyOptions {}

/**
 * Creates a compiler bound to one policy. The Bash grammar behind command checks is loaded
 * once, here, so `validate` and `compile` are synchronous.
 *
 * @example
 * ```ts
 * const compiler = await createPlanCompiler({
 *   version: 1,
 *   workspace: { roots: ['/srv/repo'] },
 *   tools: { view_file: { args: { file: { type: 'path', access: 'read' } } } },
 * })
 * const result = compiler.validate([{ id: 'read', tool: 'view_file', args: { file: 'README.md' } }])
 * if (!result.success) console.error(result.issues)
 * ```
 */
export async function createPlanCompiler(
  policyInput: PolicyInput | ResolvedPolicy,
  options: PlanCompilerOptions = {},
): Promise<PlanCompiler> {
  const policy = await resolvePolicyLazily(policyInput, options)
  const policyCommandCheck = await createPolicyCommandCheck(policy)
  const checkCommand = (command: unknown): CommandCheckResult => {
    try {
      return policyCommandCheck.check(command)
    } catch (error) {
      const issue = unreadableIssue('command_invalid', 'command', error)
      return { allowed: false, issue, issues: [issue] }
    }
  }
  // Plans this compiler produced (deep-frozen, so unchanged since): the guard need not re-check them.
  const approved = new WeakSet<object>()
  let narrowed: Promise<z.ZodType<PlanObject>> | undefined
  const budgets = policy.policy.budgets

  function validate(plan: unknown): PlanValidationResult {
    const issues: PlanIssue[] = []
    let steps: unknown
    let base: Path
    if (Array.isArray(plan)) {
      steps = plan
      base = []
    } else if (isPlainObject(plan)) {
      base = ['steps']
      for (const key of Object.keys(plan)) {
        if (!PLAN_KEYS.has(key))
          issues.push(
            createIssue(
              'invalid_plan',
              `Unknown plan key ${quote(key)}.`,
              [key],
              'A plan is { "steps": [...] } (an optional "goal" is allowed).',
            ),
          )
      }
      if (!Object.hasOwn(plan, 'steps')) {
        issues.push(
          createIssue(
            'invalid_plan',
            'The plan has no "steps".',
            [],
            'A plan is { "steps": [ { "id", "tool", "args", "depends_on" } ] }.',
          ),
        )
        return { success: false, issues }
      }
      steps = plan.steps
      if (plan.goal !== undefined && typeof plan.goal !== 'string')
        issues.push(createIssue('invalid_plan', 'The plan goal must be a string.', ['goal']))
    } else {
      issues.push(
        createIssue(
          'invalid_plan',
          `A plan must be an object with "steps" or an array of steps, got ${describe(plan)}.`,
          [],
          'Send { "steps": [ { "id", "tool", "args", "depends_on" } ] }.',
        ),
      )
      return { success: false, issues }
    }
    if (!Array.isArray(steps)) {
      issues.push(
        createIssue('invalid_plan', `"steps" must be an array, got ${describe(steps)}.`, base),
      )
      return { success: false, issues }
    }
    if (steps.length === 0) {
      issues.push(
        createIssue('invalid_plan', 'The plan has no steps.', base, 'Add at least one step.'),
      )
      return { success: false, issues }
    }
    if (steps.length > budgets.maxSteps) {
      // Answer before looking at any step, so a huge plan costs nothing more.
      issues.push(
        createIssue(
          'budget_exceeded',
          `The plan has ${steps.length} steps; the policy allows at most ${budgets.maxSteps}.`,
          base,
          `Split the work into plans of at most ${budgets.maxSteps} steps.`,
        ),
      )
      return { success: false, issues }
    }

    const table = new StepTable(steps.length)
    const ids = new Map<string, number>()
    for (let index = 0; index < steps.length; index += 1)
      readStep(table, steps[index], index, base, issues, ids)

    const found: StepReference[] = []
    const foundTargets: number[] = []
    const walk: { -readonly [K in keyof ArgumentWalk]: ArgumentWalk[K] } = {
      scope: policy.scope,
      checkCommand,
      stepIds: ids,
      stepId: undefined,
      issues,
      references: found,
      referenceTargets: foundTargets,
    }
    // Graph node of each step (by plan index), -1 for steps outside the graph; and back.
    const nodeOf = new Int32Array(table.size).fill(-1)
    let nodes = 0
    for (let index = 0; index < table.size; index += 1) {
      if (table.inGraph[index] === 1) {
        nodeOf[index] = nodes
        nodes += 1
      }
    }
    const rowOf = new Int32Array(nodes)
    for (let index = 0; index < table.size; index += 1)
      if ((nodeOf[index] as number) >= 0) rowOf[nodeOf[index] as number] = index
    // One entry per graph node, in node order; dependencies and references in compressed form.
    const nodeIds: string[] = []
    const nodeTools: (ToolPolicy | undefined)[] = []
    const nodeArgs: CompiledStep['args'][] = []
    const nodeReferences: (readonly StepReference[])[] = []
    const nodeDependsOn: (readonly string[])[] = []
    const dependencyStart = new Int32Array(nodes + 1)
    const dependencyTarget: number[] = []
    const referenceStart = new Int32Array(nodes + 1)
    const referenceTarget: number[] = []
    let toolCounts: Map<string, number> | undefined
    // Shared by every step: checkArgumentsInto copies it into the paths of the issues it reports.
    const argsBase: Path = [...base, 0, 'args']
    const stepSlot = base.length
    const names: string[] = []
    const stamp = new Int32Array(nodes)
    for (let index = 0; index < table.size; index += 1) {
      const stepId = table.ids[index]
      const tool = table.tools[index]
      const toolPolicy = tool === undefined ? undefined : policy.tools.get(tool)
      if (tool !== undefined && toolPolicy === undefined) {
        const toolNames = [...policy.tools.keys()]
        const guess = suggest(tool, toolNames)
        const allowed =
          toolNames.length === 0
            ? 'The policy allows no tools.'
            : `Allowed tools: ${toolNames.slice(0, 20).join(', ')}.`
        issues.push(
          createIssue(
            'unknown_tool',
            `Tool ${quote(tool)} is not allowed by the policy.`,
            stepPath(base, index, 'tool'),
            guess === undefined
              ? allowed
              : `Did you mean ${quote(guess)}? Tool names must match exactly. ${allowed}`,
            stepId,
          ),
        )
      }
      if (toolPolicy !== undefined && tool !== undefined) {
        const limit = toolPolicy.maxCalls ?? budgets.maxCallsPerTool
        if (limit !== undefined) {
          toolCounts ??= new Map()
          const count = (toolCounts.get(tool) ?? 0) + 1
          toolCounts.set(tool, count)
          if (count === limit + 1) {
            issues.push(
              createIssue(
                'budget_exceeded',
                `Tool ${quote(tool)} is called more than ${limit} times in this plan.`,
                stepPath(base, index, 'tool'),
                `Call ${tool} at most ${limit} times.`,
                stepId,
              ),
            )
          }
        }
      }
      walk.stepId = stepId
      argsBase[stepSlot] = index
      if (found.length > 0) {
        found.length = 0
        foundTargets.length = 0
      }
      const args =
        toolPolicy === undefined
          ? undefined
          : checkArgumentsInto(toolPolicy, table.args[index], argsBase, walk)
      if (toolPolicy?.output?.extract === true) {
        const problem = checkExtractionStep(table.args[index], stepPath(base, index), stepId)
        if (problem !== undefined) issues.push(problem)
      }
      const node = nodeOf[index] as number
      if (node < 0) continue
      let count = 0
      const raw = table.dependencies[index] as readonly string[]
      for (let position = 0; position < raw.length; position += 1) {
        const target = raw[position] as string
        const targetIndex = ids.get(target)
        if (targetIndex === undefined) {
          const guess = suggest(target, ids.keys())
          issues.push(
            createIssue(
              'undefined_dependency',
              `Step ${quote(stepId ?? '')} depends on unknown step ${quote(target)}.`,
              stepPath(base, index, table.dependenciesKey(index), position),
              guess === undefined
                ? 'Depend only on ids of steps in this plan.'
                : `Did you mean ${quote(guess)}?`,
              stepId,
            ),
          )
        } else if (target === stepId) {
          issues.push(
            createIssue(
              'self_dependency',
              `Step ${quote(target)} depends on itself.`,
              stepPath(base, index, table.dependenciesKey(index), position),
              'Remove the step from its own depends_on.',
              stepId,
            ),
          )
        } else {
          const dependency = nodeOf[targetIndex] as number
          count = addDependency(dependencyTarget, names, count, stamp, node, dependency, target)
        }
      }
      referenceStart[node] = referenceTarget.length
      // Unknown and self references were reported (and left out) by the argument check.
      for (let position = 0; position < found.length; position += 1) {
        const reference = found[position] as StepReference
        const target = nodeOf[foundTargets[position] as number] as number
        referenceTarget.push(target)
        count = addDependency(dependencyTarget, names, count, stamp, node, target, reference.stepId)
      }
      dependencyStart[node + 1] = dependencyTarget.length
      nodeIds.push(stepId as string)
      nodeTools.push(toolPolicy)
      nodeArgs.push(args ?? NO_ARGS)
      // Exact copies: arrays grown by push keep spare room, which adds up over a large plan.
      nodeDependsOn.push(count === 0 ? NO_IDS : Object.freeze(head(names, count)))
      nodeReferences.push(found.length === 0 ? NONE : Object.freeze(found.slice()))
    }
    referenceStart[nodes] = referenceTarget.length

    const graph = analyzeDependencies(dependencyStart, dependencyTarget)
    for (const cycle of graph.cycles) {
      const cycleIds = cycle.map((node) => nodeIds[node] as string)
      const first = cycle[0] as number
      issues.push({
        ...createIssue(
          'cyclic_dependency',
          `Steps form a cycle: ${cycleIds.join(' → ')}.`,
          stepPath(base, rowOf[first] as number, 'depends_on'),
          'Remove one dependency of the cycle; a plan must be a DAG.',
          nodeIds[first],
        ),
        cycle: cycleIds,
      })
    }
    if (graph.cycles.length === 0) {
      if (graph.criticalPathLength > budgets.maxDepth) {
        const deepest = graph.levels[graph.levels.length - 1]?.[0] ?? 0
        issues.push(
          createIssue(
            'budget_exceeded',
            `The longest dependency chain has ${graph.criticalPathLength} steps; the policy allows ${budgets.maxDepth}.`,
            stepPath(base, rowOf[deepest] as number),
            'Run independent steps in parallel instead of chaining them.',
            nodeIds[deepest],
          ),
        )
      }
      const fanOut = new Int32Array(nodes)
      for (let edge = 0; edge < dependencyTarget.length; edge += 1) {
        const dep = dependencyTarget[edge] as number
        fanOut[dep] = (fanOut[dep] as number) + 1
      }
      for (let node = 0; node < fanOut.length; node += 1) {
        const count = fanOut[node] as number
        if (count > budgets.maxFanOut) {
          issues.push(
            createIssue(
              'budget_exceeded',
              `${count} steps depend on step ${quote(nodeIds[node] ?? '')}; the policy allows ${budgets.maxFanOut}.`,
              stepPath(base, rowOf[node] as number),
              'Reduce the number of direct dependents.',
              nodeIds[node],
            ),
          )
        }
      }
    }
    // Labels travel only along references: a plan without any has no flow to check.
    if (graph.cycles.length === 0 && referenceTarget.length > 0) {
      const flowIssues = untrustedFlowIssues({
        policy,
        ids: nodeIds,
        references: nodeReferences,
        pathOf: (node) => stepPath(base, rowOf[node] as number),
        order: graph.order,
        tools: nodeTools,
        referenceStart,
        referenceTarget,
      })
      for (const issue of flowIssues) issues.push(issue)
    }
    if (issues.length > 0) return { success: false, issues }

    const idAt = (node: number) => nodeIds[node] as string
    const compiledSteps: CompiledStep[] = []
    const hasher = new PlanHasher()
    for (let node = 0; node < nodes; node += 1) {
      const id = nodeIds[node] as string
      const tool = table.tools[rowOf[node] as number] as string
      const args = nodeArgs[node] as CompiledStep['args']
      const dependsOn = nodeDependsOn[node] as readonly string[]
      compiledSteps.push(
        Object.freeze({
          id,
          index: rowOf[node] as number,
          tool,
          args,
          dependsOn,
          references: nodeReferences[node] as readonly StepReference[],
          level: graph.level[node] as number,
        }),
      )
      // Keys in sorted order: the literal below is canonical JSON (see hashJson) as it stands.
      hasher.add({ args, dependsOn: hashedDependencies(dependsOn), id, tool })
    }
    const hash = hasher.digest()
    const levels: (readonly string[])[] = []
    for (let level = 0; level < graph.levels.length; level += 1)
      levels.push(Object.freeze((graph.levels[level] as number[]).map(idAt)))
    const order = graph.order.map(idAt)
    const compiled: CompiledPlan = Object.freeze({
      steps: Object.freeze(compiledSteps),
      order: Object.freeze(order),
      levels: Object.freeze(levels),
      hash,
      criticalPathLength: graph.criticalPathLength,
    })
    approved.add(compiled)
    return { success: true, plan: compiled, issues: [] }
  }

  // Public entries never throw on hostile input (getters, Proxies): they fail closed with an issue.
  const validateSafely = (plan: unknown): PlanValidationResult => {
    try {
      return validate(plan)
    } catch (error) {
      return { success: false, issues: [unreadableIssue('invalid_plan', 'plan', error)] }
    }
  }

  return {
    policy,
    validate: validateSafely,
    planSchema() {
      // zod is loaded here, when a schema is asked for, not when the compiler starts.
      narrowed ??= import('../plan/plan-schema-for-policy.js').then((module) =>
        module.planSchemaForPolicy(policy),
      )
      return narrowed
    },
    approves(plan) {
      return typeof plan === 'object' && plan !== null && approved.has(plan)
    },
    compile(plan) {
      const result = validateSafely(plan)
      if (!result.success) throw new PlanCompilationError(result.issues)
      return result.plan
    },
    checkPath(value, access: PathAccess = 'read') {
      return checkPathLexical(value, policy.scope, access)
    },
    checkPathOnDisk(value, access: PathAccess = 'read') {
      return checkPathOnDisk(value, policy.scope, access)
    },
    checkCommand,
    warnings: policyCommandCheck.warnings,
    checkArguments(tool, args) {
      try {
        return checkToolArguments(tool, args)
      } catch (error) {
        return [unreadableIssue('invalid_arguments', 'arguments', error)]
      }
    },
  }

  function checkToolArguments(tool: unknown, args: unknown): PlanIssue[] {
    const toolPolicy = typeof tool === 'string' ? policy.tools.get(tool) : undefined
    if (toolPolicy === undefined) {
      const name = typeof tool === 'string' ? tool : String(tool)
      const guess = suggest(name, policy.tools.keys())
      return [
        createIssue(
          'unknown_tool',
          `Tool ${quote(name)} is not allowed by the policy.`,
          [],
          guess === undefined ? undefined : `Did you mean ${quote(guess)}?`,
        ),
      ]
    }
    return checkArguments(toolPolicy, args, [], { scope: policy.scope, checkCommand }).issues
  }
}
