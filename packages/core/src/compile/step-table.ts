import { describe } from '../checks/path-scope.js'
import { createIssue } from '../issues/create-issue.js'
import { MAX_STEP_ID_LENGTH, STEP_ID_PATTERN } from '../schema/step-id.js'
import type { PlanIssue } from '../types/plan-issue.js'
import { isPlainObject } from '../util/is-plain-object.js'

type Path = (string | number)[]

const NO_IDS: readonly string[] = Object.freeze([])

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

/** The JSON path of a step (and of a part of it), built only for an issue. */
export function stepPath(base: Path, index: number, ...rest: (string | number)[]): Path {
  return [...base, index, ...rest]
}

/** A value for a message, in quotes and cut to `limit` characters. */
export function quote(value: string, limit = 60): string {
  return JSON.stringify(value.length > limit ? `${value.slice(0, limit)}…` : value)
}

/**
 * A plan's steps as read, one column per field and one row per step in plan order: no object
 * per step, so a large plan leaves little for the garbage collector.
 */
export class StepTable {
  readonly ids: (string | undefined)[] = []
  readonly tools: (string | undefined)[] = []
  readonly args: unknown[] = []
  /** The ids in `depends_on` (or `dependsOn`), strings only. */
  readonly dependencies: (readonly string[])[] = []
  /** 1 where the dependencies were spelled `dependsOn`. */
  readonly camel: Uint8Array
  /** 1 for a step in the graph: a well-formed id, seen for the first time. */
  readonly inGraph: Uint8Array

  constructor(size: number) {
    this.camel = new Uint8Array(size)
    this.inGraph = new Uint8Array(size)
  }

  get size(): number {
    return this.ids.length
  }

  add(
    id: string | undefined,
    tool: string | undefined,
    args: unknown,
    dependencies: readonly string[],
    camel: boolean,
    inGraph: boolean,
  ): void {
    const row = this.ids.length
    this.ids.push(id)
    this.tools.push(tool)
    this.args.push(args)
    this.dependencies.push(dependencies)
    if (camel) this.camel[row] = 1
    if (inGraph) this.inGraph[row] = 1
  }

  /** The key the step's dependencies were written under, for an issue's path. */
  dependenciesKey(row: number): 'depends_on' | 'dependsOn' {
    return this.camel[row] === 1 ? 'dependsOn' : 'depends_on'
  }
}

/**
 * Reads the step at `index` (the next row) into `table`, reporting every problem of its shape;
 * a well-formed id seen for the first time goes into `ids`.
 */
export function readStep(
  table: StepTable,
  raw: unknown,
  index: number,
  base: Path,
  issues: PlanIssue[],
  ids: Map<string, number>,
): void {
  if (!isPlainObject(raw)) {
    issues.push(
      createIssue(
        'invalid_plan',
        `Step ${index} must be an object, got ${describe(raw)}.`,
        stepPath(base, index),
        'A step is { "id", "tool", "args", "depends_on" }.',
      ),
    )
    table.add(undefined, undefined, {}, NO_IDS, false, false)
    return
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
  table.add(id, tool, raw.args, rawDependencies, !hasSnake, inGraph)
}
