import { checkPathOnDisk } from '../checks/path-on-disk.js'
import { checkPathLexical, describe, type PathAccess } from '../checks/path-scope.js'
import type { CommandCheckResult } from '../command/command-check-result.js'
import { createCommandChecker } from '../command/create-command-checker.js'
import { PlanCompilationError } from '../errors/plan-compilation-error.js'
import { type IndexedFlowStep, untrustedFlowIssues } from '../flow/untrusted-flow-issues.js'
import { createIssue } from '../issues/create-issue.js'
import type { PlanIssue } from '../issues/plan-issue.js'
import { MAX_STEP_ID_LENGTH, STEP_ID_PATTERN } from '../plan/plan-schema.js'
import { planSchemaForPolicy } from '../plan/plan-schema-for-policy.js'
import type { PolicyInput, ToolPolicy } from '../policy/policy-schema.js'
import {
  type ResolvedPolicy,
  type ResolvePolicyOptions,
  resolvePolicy,
} from '../policy/resolve-policy.js'
import { isPlainObject } from '../util/is-plain-object.js'
import { analyzeGraph } from './analyze-graph.js'
import { type ArgumentWalk, checkArguments, checkArgumentsInto } from './check-arguments.js'
import type { CompiledPlan, CompiledStep, StepReference } from './compiled-plan.js'
import type { PlanCompiler, PlanValidationResult } from './plan-compiler.js'
import { PlanHasher } from './plan-hasher.js'
import { suggest } from './suggest.js'
import { unreadableIssue } from './unreadable-issue.js'

type Path = (string | number)[]

/** The keys a step may have (a switch: no hashing of every key of every step). */
function isStepKey(key: string): boolean {
  switch (key) {
    case 'id':
    case 'tool':
    case 'args':
    case 'depends_on':
    case 'dependsOn':
    case 'description':
      return true
    default:
      return false
  }
}

const PLAN_KEYS = new Set(['steps', 'goal'])

/** The JSON path of a step (and of a part of it), built only for an issue. */
function stepPath(base: Path, index: number, ...rest: (string | number)[]): Path {
  return [...base, index, ...rest]
}

function quote(value: string, limit = 60): string {
  return JSON.stringify(value.length > limit ? `${value.slice(0, limit)}…` : value)
}

const NONE: readonly StepReference[] = Object.freeze([])
const NO_IDS: readonly string[] = Object.freeze([])
const NO_NODES: readonly number[] = Object.freeze([])
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
 * Adds an edge to `edges[0, count)` (and the step's id to `names`) once, with a stamp per node
 * instead of a Set per step; returns the new count.
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
  edges[count] = dependency
  names[count] = id
  return count + 1
}

/** A new array of `items[0, count)`; literals for the usual one or two keep it exact-size. */
function head<T>(items: readonly T[], count: number): T[] {
  if (count === 1) return [items[0] as T]
  if (count === 2) return [items[0] as T, items[1] as T]
  return items.slice(0, count)
}

/**
 * One step while a plan is checked. Graph steps are handed to the flow check as they are, so
 * their JSON path is built only if an issue needs it.
 */
class StepDraft {
  /** The checked copy of the arguments. */
  checkedArgs: CompiledStep['args'] = NO_ARGS
  references: readonly StepReference[] = NONE
  /** Graph nodes this step depends on, explicit ones first. */
  dependsOn: readonly number[] = NO_NODES
  /** Their step ids. */
  dependsOnIds: readonly string[] = NO_IDS

  constructor(
    readonly base: Path,
    readonly index: number,
    readonly id: string | undefined,
    readonly tool: string | undefined,
    readonly rawDependencies: readonly string[],
    readonly dependenciesKey: 'depends_on' | 'dependsOn',
    readonly args: unknown,
    /** Whether this step takes part in the graph (a well-formed, first occurrence of its id). */
    readonly inGraph: boolean,
  ) {}

  get path(): Path {
    return stepPath(this.base, this.index)
  }
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
  const policy = resolvePolicy(policyInput, options)
  const commandChecker = await createCommandChecker({
    policy: policy.policy.commands,
    scope: policy.scope,
  })
  const checkCommand = (command: unknown): CommandCheckResult => {
    try {
      return commandChecker.check(command)
    } catch (error) {
      const issue = unreadableIssue('command_invalid', 'command', error)
      return { allowed: false, issue, issues: [issue] }
    }
  }
  // Plans this compiler produced (deep-frozen, so unchanged since): the guard need not re-check them.
  const approved = new WeakSet<object>()
  let narrowed: ReturnType<typeof planSchemaForPolicy> | undefined
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

    const drafts: StepDraft[] = []
    const ids = new Map<string, number>()
    for (let index = 0; index < steps.length; index += 1) {
      drafts.push(readStep(steps[index], index, base, issues, ids))
    }

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
    // Graph node of each step (by plan index), -1 for steps outside the graph.
    const nodeOf = new Int32Array(drafts.length).fill(-1)
    const graphSteps: StepDraft[] = []
    for (let index = 0; index < drafts.length; index += 1) {
      const draft = drafts[index] as StepDraft
      if (draft.inGraph) {
        nodeOf[draft.index] = graphSteps.length
        graphSteps.push(draft)
      }
    }
    const dependencies: (readonly number[])[] = []
    let toolCounts: Map<string, number> | undefined
    // Shared by every step: checkArgumentsInto copies it into the paths of the issues it reports.
    const argsBase: Path = [...base, 0, 'args']
    const stepSlot = base.length
    const edges: number[] = []
    const names: string[] = []
    const stamp = new Int32Array(graphSteps.length)
    // What the flow check reads, by graph node: the tool's policy and the node each reference reads.
    const nodeTools: (ToolPolicy | undefined)[] = []
    const referenceStart: number[] = []
    const referenceTarget: number[] = []
    for (let index = 0; index < drafts.length; index += 1) {
      const draft = drafts[index] as StepDraft
      const stepId = draft.id
      const tool = draft.tool
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
            stepPath(base, draft.index, 'tool'),
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
                stepPath(base, draft.index, 'tool'),
                `Call ${tool} at most ${limit} times.`,
                stepId,
              ),
            )
          }
        }
      }
      walk.stepId = stepId
      argsBase[stepSlot] = draft.index
      if (found.length > 0) {
        found.length = 0
        foundTargets.length = 0
      }
      const args =
        toolPolicy === undefined
          ? undefined
          : checkArgumentsInto(toolPolicy, draft.args, argsBase, walk)
      if (!draft.inGraph) continue
      const node = nodeOf[draft.index] as number
      let count = 0
      const raw = draft.rawDependencies
      for (let position = 0; position < raw.length; position += 1) {
        const target = raw[position] as string
        const targetIndex = ids.get(target)
        if (targetIndex === undefined) {
          const guess = suggest(target, ids.keys())
          issues.push(
            createIssue(
              'undefined_dependency',
              `Step ${quote(stepId ?? '')} depends on unknown step ${quote(target)}.`,
              stepPath(base, draft.index, draft.dependenciesKey, position),
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
              stepPath(base, draft.index, draft.dependenciesKey, position),
              'Remove the step from its own depends_on.',
              stepId,
            ),
          )
        } else {
          count = addDependency(
            edges,
            names,
            count,
            stamp,
            node,
            nodeOf[targetIndex] as number,
            target,
          )
        }
      }
      nodeTools.push(toolPolicy)
      referenceStart.push(referenceTarget.length)
      // Unknown and self references were reported (and left out) by the argument check.
      for (let position = 0; position < found.length; position += 1) {
        const reference = found[position] as StepReference
        const target = nodeOf[foundTargets[position] as number] as number
        referenceTarget.push(target)
        count = addDependency(edges, names, count, stamp, node, target, reference.stepId)
      }
      // Exact copies: arrays grown by push keep spare room, which adds up over a large plan.
      if (count > 0) {
        draft.dependsOn = head(edges, count)
        draft.dependsOnIds = Object.freeze(head(names, count))
      }
      dependencies.push(draft.dependsOn)
      if (args !== undefined) draft.checkedArgs = args
      if (found.length > 0) draft.references = Object.freeze(found.slice())
    }

    referenceStart.push(referenceTarget.length)
    const graph = analyzeGraph(dependencies)
    for (const cycle of graph.cycles) {
      const names = cycle.map((node) => (graphSteps[node] as StepDraft).id as string)
      const first = graphSteps[cycle[0] as number] as StepDraft
      issues.push({
        ...createIssue(
          'cyclic_dependency',
          `Steps form a cycle: ${names.join(' → ')}.`,
          stepPath(base, first.index, 'depends_on'),
          'Remove one dependency of the cycle; a plan must be a DAG.',
          first.id,
        ),
        cycle: names,
      })
    }
    if (graph.cycles.length === 0) {
      if (graph.criticalPathLength > budgets.maxDepth) {
        const deepest = graph.levels[graph.levels.length - 1]?.[0] ?? 0
        const draft = graphSteps[deepest] as StepDraft
        issues.push(
          createIssue(
            'budget_exceeded',
            `The longest dependency chain has ${graph.criticalPathLength} steps; the policy allows ${budgets.maxDepth}.`,
            stepPath(base, draft.index),
            'Run independent steps in parallel instead of chaining them.',
            draft.id,
          ),
        )
      }
      const fanOut = new Int32Array(graphSteps.length)
      for (let node = 0; node < dependencies.length; node += 1) {
        const deps = dependencies[node] as readonly number[]
        for (let edge = 0; edge < deps.length; edge += 1) {
          const dep = deps[edge] as number
          fanOut[dep] = (fanOut[dep] as number) + 1
        }
      }
      for (let node = 0; node < fanOut.length; node += 1) {
        const count = fanOut[node] as number
        if (count > budgets.maxFanOut) {
          const draft = graphSteps[node] as StepDraft
          issues.push(
            createIssue(
              'budget_exceeded',
              `${count} steps depend on step ${quote(draft.id ?? '')}; the policy allows ${budgets.maxFanOut}.`,
              stepPath(base, draft.index),
              'Reduce the number of direct dependents.',
              draft.id,
            ),
          )
        }
      }
    }
    // Labels travel only along references: a plan without any has no flow to check.
    if (graph.cycles.length === 0 && referenceTarget.length > 0) {
      const flowIssues = untrustedFlowIssues({
        policy,
        // Every graph step has an id.
        steps: graphSteps as readonly IndexedFlowStep[],
        order: graph.order,
        tools: nodeTools,
        referenceStart,
        referenceTarget,
      })
      for (const issue of flowIssues) issues.push(issue)
    }
    if (issues.length > 0) return { success: false, issues }

    const idOf: string[] = []
    for (let node = 0; node < graphSteps.length; node += 1)
      idOf.push((graphSteps[node] as StepDraft).id as string)
    const idAt = (node: number) => idOf[node] as string
    const compiledSteps: CompiledStep[] = []
    const hasher = new PlanHasher()
    for (let node = 0; node < graphSteps.length; node += 1) {
      const draft = graphSteps[node] as StepDraft
      const args = draft.checkedArgs
      compiledSteps.push(
        Object.freeze({
          id: draft.id as string,
          index: draft.index,
          tool: draft.tool as string,
          args,
          dependsOn: draft.dependsOnIds,
          references: draft.references,
          level: graph.level[node] as number,
        }),
      )
      // Keys in sorted order: the literal below is canonical JSON (see hashJson) as it stands.
      hasher.add({
        args,
        dependsOn: hashedDependencies(draft.dependsOnIds),
        id: draft.id as string,
        tool: draft.tool as string,
      })
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
      narrowed ??= planSchemaForPolicy(policy)
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

function readStep(
  raw: unknown,
  index: number,
  base: Path,
  issues: PlanIssue[],
  ids: Map<string, number>,
): StepDraft {
  if (!isPlainObject(raw)) {
    issues.push(
      createIssue(
        'invalid_plan',
        `Step ${index} must be an object, got ${describe(raw)}.`,
        stepPath(base, index),
        'A step is { "id", "tool", "args", "depends_on" }.',
      ),
    )
    return new StepDraft(base, index, undefined, undefined, NO_IDS, 'depends_on', {}, false)
  }
  const rawId = raw.id
  let id: string | undefined
  if (!Object.hasOwn(raw, 'id')) {
    issues.push(
      createIssue(
        'invalid_plan',
        `Step ${index} has no id.`,
        stepPath(base, index),
        `Give every step a unique string id, e.g. "step_${index + 1}".`,
      ),
    )
  } else if (typeof rawId !== 'string') {
    const example =
      typeof rawId === 'number' && Number.isFinite(rawId) ? `"${rawId}"` : `"step_${index + 1}"`
    issues.push(
      createIssue(
        'invalid_plan',
        `Step ids must be strings, got ${describe(rawId)}.`,
        stepPath(base, index, 'id'),
        `Use a string id such as ${example}.`,
      ),
    )
  } else if (rawId.length === 0) {
    issues.push(
      createIssue(
        'invalid_plan',
        'Step id is empty.',
        stepPath(base, index, 'id'),
        `Use a non-empty id such as "step_${index + 1}".`,
      ),
    )
  } else if (rawId.length > MAX_STEP_ID_LENGTH) {
    issues.push(
      createIssue(
        'invalid_plan',
        `Step id is ${rawId.length} characters long (at most ${MAX_STEP_ID_LENGTH}).`,
        stepPath(base, index, 'id'),
        'Use a short id such as "step_1".',
      ),
    )
  } else if (!STEP_ID_PATTERN.test(rawId)) {
    issues.push(
      createIssue(
        'invalid_plan',
        `Step id ${quote(rawId)} may only contain letters, digits, "_" and "-".`,
        stepPath(base, index, 'id'),
        'Use an id such as "read_config" or "step_1".',
      ),
    )
  } else {
    id = rawId
  }
  for (const key in raw) {
    if (!isStepKey(key) && Object.hasOwn(raw, key)) {
      issues.push(
        createIssue(
          'invalid_plan',
          `Unknown step key ${quote(key)}.`,
          stepPath(base, index, key),
          'A step has only "id", "tool", "args", "depends_on" (or "dependsOn") and "description"; put tool arguments inside "args".',
          id,
        ),
      )
    }
  }
  let inGraph = id !== undefined
  if (id !== undefined) {
    const first = ids.get(id)
    if (first !== undefined) {
      issues.push(
        createIssue(
          'duplicate_step_id',
          `Step id ${quote(id)} is already used by step ${first}.`,
          stepPath(base, index, 'id'),
          'Give every step a unique id.',
          id,
        ),
      )
      inGraph = false
    } else {
      ids.set(id, index)
    }
  }
  let tool: string | undefined
  const rawTool = raw.tool
  if (typeof rawTool === 'string' && rawTool.length > 0) tool = rawTool
  else
    issues.push(
      createIssue(
        'invalid_plan',
        rawTool === undefined
          ? 'Step has no tool.'
          : `Tool must be a non-empty string, got ${describe(rawTool)}.`,
        stepPath(base, index, 'tool'),
        'Name one of the tools the policy allows.',
        id,
      ),
    )
  if (typeof raw.description !== 'undefined' && typeof raw.description !== 'string') {
    issues.push(
      createIssue(
        'invalid_plan',
        'Step description must be a string.',
        stepPath(base, index, 'description'),
        undefined,
        id,
      ),
    )
  }

  const hasSnake = Object.hasOwn(raw, 'depends_on')
  const hasCamel = Object.hasOwn(raw, 'dependsOn')
  const key = hasSnake ? 'depends_on' : 'dependsOn'
  let rawDependencies: readonly string[] = NO_IDS
  if (hasSnake && hasCamel) {
    issues.push(
      createIssue(
        'invalid_plan',
        'Step has both "depends_on" and "dependsOn".',
        stepPath(base, index, 'dependsOn'),
        'Use one of them.',
        id,
      ),
    )
  }
  const deps = hasSnake ? raw.depends_on : raw.dependsOn
  if (deps !== undefined && deps !== null) {
    if (!Array.isArray(deps)) {
      issues.push(
        createIssue(
          'invalid_plan',
          `"${key}" must be an array of step ids, got ${describe(deps)}.`,
          stepPath(base, index, key),
          'Write e.g. ["step_1"].',
          id,
        ),
      )
    } else {
      // Sized up front: an array grown from [] reserves room for 16 more ids.
      const strings: string[] = new Array(deps.length)
      let count = 0
      for (let position = 0; position < deps.length; position += 1) {
        // Holes are skipped, as forEach would.
        if (!(position in deps)) continue
        const dep: unknown = deps[position]
        if (typeof dep === 'string') {
          strings[count] = dep
          count += 1
        } else
          issues.push(
            createIssue(
              'invalid_plan',
              `Dependencies must be step ids (strings), got ${describe(dep)}.`,
              stepPath(base, index, key, position),
              'Write step ids as strings.',
              id,
            ),
          )
      }
      if (count < strings.length) strings.length = count
      rawDependencies = strings
    }
  }
  return new StepDraft(base, index, id, tool, rawDependencies, key, raw.args, inGraph)
}
