import { checkPathOnDisk } from '../checks/path-on-disk.js'
import { checkPathLexical, describe, type PathAccess } from '../checks/path-scope.js'
import { createCommandChecker } from '../command/create-command-checker.js'
import { PlanCompilationError } from '../errors/plan-compilation-error.js'
import { checkUntrustedFlow } from '../flow/check-untrusted-flow.js'
import type { PlanIssue } from '../issues/plan-issue.js'
import { MAX_STEP_ID_LENGTH, STEP_ID_PATTERN } from '../plan/plan-schema.js'
import type { PolicyInput } from '../policy/policy-schema.js'
import {
  type ResolvedPolicy,
  type ResolvePolicyOptions,
  resolvePolicy,
} from '../policy/resolve-policy.js'
import { sha256 } from '../util/canonical-json.js'
import { analyzeGraph } from './analyze-graph.js'
import { type ArgumentContext, checkArguments } from './check-arguments.js'
import type { CompiledPlan, CompiledStep, StepReference } from './compiled-plan.js'
import type { PlanCompiler, PlanValidationResult } from './plan-compiler.js'
import { suggest } from './suggest.js'

type Path = (string | number)[]
type MutableIssue = { -readonly [K in keyof PlanIssue]: PlanIssue[K] }

const STEP_KEYS = new Set(['id', 'tool', 'args', 'depends_on', 'dependsOn', 'description'])
const PLAN_KEYS = new Set(['steps', 'goal'])

function issue(
  code: PlanIssue['code'],
  message: string,
  path: Path,
  hint?: string,
  stepId?: string,
): PlanIssue {
  const result: MutableIssue = { code, message, path }
  if (stepId !== undefined) result.stepId = stepId
  if (hint !== undefined) result.hint = hint
  return result
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

function quote(value: string, limit = 60): string {
  return JSON.stringify(value.length > limit ? `${value.slice(0, limit)}…` : value)
}

interface StepDraft {
  readonly index: number
  readonly id: string | undefined
  readonly tool: string | undefined
  readonly rawDependencies: readonly string[]
  readonly dependenciesKey: 'depends_on' | 'dependsOn'
  readonly args: unknown
  readonly path: Path
  /** Whether this step takes part in the graph (a well-formed, first occurrence of its id). */
  inGraph: boolean
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
  const checkCommand = (command: unknown) => commandChecker.check(command)
  const patterns = new WeakMap<object, RegExp>()
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
            issue(
              'invalid_plan',
              `Unknown plan key ${quote(key)}.`,
              [key],
              'A plan is { "steps": [...] } (an optional "goal" is allowed).',
            ),
          )
      }
      if (!Object.hasOwn(plan, 'steps')) {
        issues.push(
          issue(
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
        issues.push(issue('invalid_plan', 'The plan goal must be a string.', ['goal']))
    } else {
      issues.push(
        issue(
          'invalid_plan',
          `A plan must be an object with "steps" or an array of steps, got ${describe(plan)}.`,
          [],
          'Send { "steps": [ { "id", "tool", "args", "depends_on" } ] }.',
        ),
      )
      return { success: false, issues }
    }
    if (!Array.isArray(steps)) {
      issues.push(issue('invalid_plan', `"steps" must be an array, got ${describe(steps)}.`, base))
      return { success: false, issues }
    }
    if (steps.length === 0) {
      issues.push(issue('invalid_plan', 'The plan has no steps.', base, 'Add at least one step.'))
      return { success: false, issues }
    }
    if (steps.length > budgets.maxSteps) {
      // Answer before looking at any step, so a huge plan costs nothing more.
      issues.push(
        issue(
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
      drafts.push(readStep(steps[index], index, [...base, index], issues, ids))
    }

    const toolNames = [...policy.tools.keys()]
    const toolCounts = new Map<string, number>()
    const context: { -readonly [K in keyof ArgumentContext]: ArgumentContext[K] } = {
      scope: policy.scope,
      checkCommand,
      patterns,
      stepIds: ids,
    }
    const dependencies: number[][] = []
    const graphIndex = new Map<number, number>()
    const graphSteps: StepDraft[] = []
    const compiledArgs: CompiledStep['args'][] = []
    const references: StepReference[][] = []
    const explicit: string[][] = []

    for (const draft of drafts) {
      if (draft.inGraph) {
        graphIndex.set(draft.index, graphSteps.length)
        graphSteps.push(draft)
      }
    }
    const stamp = new Int32Array(graphSteps.length)
    for (const draft of drafts) {
      const stepId = draft.id
      const toolPolicy = draft.tool === undefined ? undefined : policy.tools.get(draft.tool)
      if (draft.tool !== undefined && toolPolicy === undefined) {
        const guess = suggest(draft.tool, toolNames)
        const allowed =
          toolNames.length === 0
            ? 'The policy allows no tools.'
            : `Allowed tools: ${toolNames.slice(0, 20).join(', ')}.`
        issues.push(
          issue(
            'unknown_tool',
            `Tool ${quote(draft.tool)} is not allowed by the policy.`,
            [...draft.path, 'tool'],
            guess === undefined
              ? allowed
              : `Did you mean ${quote(guess)}? Tool names must match exactly. ${allowed}`,
            stepId,
          ),
        )
      }
      if (toolPolicy !== undefined && draft.tool !== undefined) {
        const count = (toolCounts.get(draft.tool) ?? 0) + 1
        toolCounts.set(draft.tool, count)
        const limit = toolPolicy.maxCalls ?? budgets.maxCallsPerTool
        if (limit !== undefined && count === limit + 1) {
          issues.push(
            issue(
              'budget_exceeded',
              `Tool ${quote(draft.tool)} is called more than ${limit} times in this plan.`,
              [...draft.path, 'tool'],
              `Call ${draft.tool} at most ${limit} times.`,
              stepId,
            ),
          )
        }
      }
      context.stepId = stepId
      const checked =
        toolPolicy === undefined
          ? undefined
          : checkArguments(toolPolicy, draft.args, [...draft.path, 'args'], context)
      if (checked !== undefined) issues.push(...checked.issues)
      if (!draft.inGraph) continue
      const deps: number[] = []
      const node = graphIndex.get(draft.index) as number
      const addDependency = (target: string, path: () => Path, viaReference: boolean) => {
        const targetIndex = ids.get(target)
        if (targetIndex === undefined) {
          if (!viaReference) {
            const guess = suggest(target, ids.keys())
            issues.push(
              issue(
                'undefined_dependency',
                `Step ${quote(stepId ?? '')} depends on unknown step ${quote(target)}.`,
                path(),
                guess === undefined
                  ? 'Depend only on ids of steps in this plan.'
                  : `Did you mean ${quote(guess)}?`,
                stepId,
              ),
            )
          }
          return
        }
        if (target === stepId) {
          if (!viaReference) {
            issues.push(
              issue(
                'self_dependency',
                `Step ${quote(target)} depends on itself.`,
                path(),
                'Remove the step from its own depends_on.',
                stepId,
              ),
            )
          }
          return
        }
        const dependency = graphIndex.get(targetIndex)
        // A stamp per node instead of a Set per step: the same dependency is kept once.
        if (dependency === undefined || stamp[dependency] === node + 1) return
        stamp[dependency] = node + 1
        deps.push(dependency)
      }
      for (let position = 0; position < draft.rawDependencies.length; position += 1) {
        addDependency(
          draft.rawDependencies[position] as string,
          () => [...draft.path, draft.dependenciesKey, position],
          false,
        )
      }
      for (const reference of checked?.references ?? []) {
        addDependency(reference.stepId, () => [...draft.path, 'args', ...reference.path], true)
      }
      dependencies.push(deps)
      compiledArgs.push(checked?.args ?? {})
      references.push(checked?.references ?? [])
      explicit.push([...new Set(draft.rawDependencies)])
    }

    const graph = analyzeGraph(dependencies)
    for (const cycle of graph.cycles) {
      const names = cycle.map((node) => (graphSteps[node] as StepDraft).id as string)
      const first = graphSteps[cycle[0] as number] as StepDraft
      issues.push({
        ...issue(
          'cyclic_dependency',
          `Steps form a cycle: ${names.join(' → ')}.`,
          [...first.path, 'depends_on'],
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
          issue(
            'budget_exceeded',
            `The longest dependency chain has ${graph.criticalPathLength} steps; the policy allows ${budgets.maxDepth}.`,
            draft.path,
            'Run independent steps in parallel instead of chaining them.',
            draft.id,
          ),
        )
      }
      const fanOut = new Int32Array(graphSteps.length)
      for (const deps of dependencies)
        for (const dep of deps) fanOut[dep] = (fanOut[dep] as number) + 1
      fanOut.forEach((count, node) => {
        if (count > budgets.maxFanOut) {
          const draft = graphSteps[node] as StepDraft
          issues.push(
            issue(
              'budget_exceeded',
              `${count} steps depend on step ${quote(draft.id ?? '')}; the policy allows ${budgets.maxFanOut}.`,
              draft.path,
              'Reduce the number of direct dependents.',
              draft.id,
            ),
          )
        }
      })
    }
    if (graph.cycles.length === 0) {
      issues.push(
        ...checkUntrustedFlow({
          policy,
          steps: graphSteps.map((draft, node) => ({
            id: draft.id as string,
            tool: draft.tool as string,
            path: draft.path,
            references: references[node] as StepReference[],
            dependsOn: dependencies[node] as number[],
          })),
          order: graph.order,
        }),
      )
    }
    if (issues.length > 0) return { success: false, issues }

    const compiledSteps: CompiledStep[] = graphSteps.map((draft, node) => {
      const dependsOn = (dependencies[node] as number[]).map(
        (dep) => (graphSteps[dep] as StepDraft).id as string,
      )
      return {
        id: draft.id as string,
        index: draft.index,
        tool: draft.tool as string,
        args: compiledArgs[node] as CompiledStep['args'],
        dependsOn,
        references: references[node] as StepReference[],
        level: graph.level[node] as number,
      }
    })
    // Arguments were copied with sorted keys, so this literal (keys in sorted order) is canonical
    // JSON: equal to canonicalJson of the same value, at native JSON.stringify speed.
    const hash = sha256(
      JSON.stringify({
        steps: compiledSteps.map((step, node) => ({
          args: step.args,
          dependsOn: [...(explicit[node] as string[])].sort(),
          id: step.id,
          tool: step.tool,
        })),
        version: 1,
      }),
    )
    const compiled: CompiledPlan = {
      steps: compiledSteps,
      order: graph.order.map((node) => (graphSteps[node] as StepDraft).id as string),
      levels: graph.levels.map((group) =>
        group.map((node) => (graphSteps[node] as StepDraft).id as string),
      ),
      hash,
      criticalPathLength: graph.criticalPathLength,
    }
    return { success: true, plan: freezePlan(compiled), issues: [] }
  }

  return {
    policy,
    validate,
    compile(plan) {
      const result = validate(plan)
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
      const toolPolicy = typeof tool === 'string' ? policy.tools.get(tool) : undefined
      if (toolPolicy === undefined) {
        const name = typeof tool === 'string' ? tool : String(tool)
        const guess = suggest(name, policy.tools.keys())
        return [
          issue(
            'unknown_tool',
            `Tool ${quote(name)} is not allowed by the policy.`,
            [],
            guess === undefined ? undefined : `Did you mean ${quote(guess)}?`,
          ),
        ]
      }
      return checkArguments(toolPolicy, args, [], { scope: policy.scope, checkCommand, patterns })
        .issues
    },
  }
}

function readStep(
  raw: unknown,
  index: number,
  path: Path,
  issues: PlanIssue[],
  ids: Map<string, number>,
): StepDraft {
  const empty: StepDraft = {
    index,
    id: undefined,
    tool: undefined,
    rawDependencies: [],
    dependenciesKey: 'depends_on',
    args: {},
    path,
    inGraph: false,
  }
  if (!isPlainObject(raw)) {
    issues.push(
      issue(
        'invalid_plan',
        `Step ${index} must be an object, got ${describe(raw)}.`,
        path,
        'A step is { "id", "tool", "args", "depends_on" }.',
      ),
    )
    return empty
  }
  const rawId = raw.id
  let id: string | undefined
  if (!Object.hasOwn(raw, 'id')) {
    issues.push(
      issue(
        'invalid_plan',
        `Step ${index} has no id.`,
        path,
        `Give every step a unique string id, e.g. "step_${index + 1}".`,
      ),
    )
  } else if (typeof rawId !== 'string') {
    const example =
      typeof rawId === 'number' && Number.isFinite(rawId) ? `"${rawId}"` : `"step_${index + 1}"`
    issues.push(
      issue(
        'invalid_plan',
        `Step ids must be strings, got ${describe(rawId)}.`,
        [...path, 'id'],
        `Use a string id such as ${example}.`,
      ),
    )
  } else if (rawId.length === 0) {
    issues.push(
      issue(
        'invalid_plan',
        'Step id is empty.',
        [...path, 'id'],
        `Use a non-empty id such as "step_${index + 1}".`,
      ),
    )
  } else if (rawId.length > MAX_STEP_ID_LENGTH) {
    issues.push(
      issue(
        'invalid_plan',
        `Step id is ${rawId.length} characters long (at most ${MAX_STEP_ID_LENGTH}).`,
        [...path, 'id'],
        'Use a short id such as "step_1".',
      ),
    )
  } else if (!STEP_ID_PATTERN.test(rawId)) {
    issues.push(
      issue(
        'invalid_plan',
        `Step id ${quote(rawId)} may only contain letters, digits, "_" and "-".`,
        [...path, 'id'],
        'Use an id such as "read_config" or "step_1".',
      ),
    )
  } else {
    id = rawId
  }
  for (const key of Object.keys(raw)) {
    if (!STEP_KEYS.has(key)) {
      issues.push(
        issue(
          'invalid_plan',
          `Unknown step key ${quote(key)}.`,
          [...path, key],
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
        issue(
          'duplicate_step_id',
          `Step id ${quote(id)} is already used by step ${first}.`,
          [...path, 'id'],
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
  if (typeof raw.tool === 'string' && raw.tool.length > 0) tool = raw.tool
  else
    issues.push(
      issue(
        'invalid_plan',
        raw.tool === undefined
          ? 'Step has no tool.'
          : `Tool must be a non-empty string, got ${describe(raw.tool)}.`,
        [...path, 'tool'],
        'Name one of the tools the policy allows.',
        id,
      ),
    )
  if (typeof raw.description !== 'undefined' && typeof raw.description !== 'string') {
    issues.push(
      issue(
        'invalid_plan',
        'Step description must be a string.',
        [...path, 'description'],
        undefined,
        id,
      ),
    )
  }

  const hasSnake = Object.hasOwn(raw, 'depends_on')
  const hasCamel = Object.hasOwn(raw, 'dependsOn')
  const key = hasSnake ? 'depends_on' : 'dependsOn'
  const rawDependencies: string[] = []
  if (hasSnake && hasCamel) {
    issues.push(
      issue(
        'invalid_plan',
        'Step has both "depends_on" and "dependsOn".',
        [...path, 'dependsOn'],
        'Use one of them.',
        id,
      ),
    )
  }
  const deps = hasSnake ? raw.depends_on : raw.dependsOn
  if (deps !== undefined && deps !== null) {
    if (!Array.isArray(deps)) {
      issues.push(
        issue(
          'invalid_plan',
          `"${key}" must be an array of step ids, got ${describe(deps)}.`,
          [...path, key],
          'Write e.g. ["step_1"].',
          id,
        ),
      )
    } else {
      deps.forEach((dep: unknown, position: number) => {
        if (typeof dep === 'string') rawDependencies.push(dep)
        else
          issues.push(
            issue(
              'invalid_plan',
              `Dependencies must be step ids (strings), got ${describe(dep)}.`,
              [...path, key, position],
              'Write step ids as strings.',
              id,
            ),
          )
      })
    }
  }
  return {
    index,
    id,
    tool,
    rawDependencies,
    dependenciesKey: key,
    args: raw.args,
    path,
    inGraph,
  }
}

/** Freezes the plan's own structure; arguments and references were frozen as they were built. */
function freezePlan(plan: CompiledPlan): CompiledPlan {
  for (const step of plan.steps) {
    Object.freeze(step.dependsOn)
    Object.freeze(step.references)
    Object.freeze(step)
  }
  Object.freeze(plan.steps)
  Object.freeze(plan.order)
  for (const level of plan.levels) Object.freeze(level)
  Object.freeze(plan.levels)
  return Object.freeze(plan)
}
